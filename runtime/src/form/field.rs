//! The field types a form can hold and the schema each one becomes.

use std::collections::{BTreeSet, HashSet};
use std::hash::Hash;

use serde_json::{Number, Value};

use crate::model::{
    ArrayType, BooleanSchema, NumberSchema, NumberType, PrimitiveSchemaDefinition, StringFormat, StringSchema,
    StringType, TitledItems, TitledMultiSelectEnumSchema, TitledOption, TitledSingleSelectEnumSchema, UntitledItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};

/// What kind of field a type is, for checking attributes at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Free text.
    Text,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// Yes or no.
    Boolean,
    /// One of several choices.
    Choice,
    /// Any of several choices.
    MultiChoice,
}

impl FieldKind {
    /// Whether `min_length`, `max_length` and `format` apply.
    pub const fn is_text(self) -> bool {
        matches!(self, FieldKind::Text)
    }

    /// Whether `minimum` and `maximum` apply.
    pub const fn is_numeric(self) -> bool {
        matches!(self, FieldKind::Integer | FieldKind::Number)
    }

    /// Whether `min_items` and `max_items` apply.
    pub const fn is_multi(self) -> bool {
        matches!(self, FieldKind::MultiChoice)
    }
}

/// What the field's attributes say, for the code `#[derive(Form)]` generates.
#[derive(Clone, Debug, Default)]
#[doc(hidden)]
pub struct FieldOptions {
    /// Label.
    pub title: Option<&'static str>,
    /// Help text (the doc comment).
    pub description: Option<&'static str>,
    /// Shortest text.
    pub min_length: Option<u64>,
    /// Longest text.
    pub max_length: Option<u64>,
    /// Text format.
    pub format: Option<StringFormat>,
    /// Smallest number.
    pub minimum: Option<f64>,
    /// Largest number.
    pub maximum: Option<f64>,
    /// Fewest choices.
    pub min_items: Option<u64>,
    /// Most choices.
    pub max_items: Option<u64>,
    /// Pre-filled value.
    pub default: Option<Value>,
}

/// One option of a choice: the value sent back and, optionally, what the user sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoiceOption {
    /// The value.
    pub value: String,
    /// The label, if different from the value.
    pub title: Option<String>,
}

impl From<&str> for ChoiceOption {
    fn from(value: &str) -> Self {
        ChoiceOption { value: value.to_owned(), title: None }
    }
}

impl From<String> for ChoiceOption {
    fn from(value: String) -> Self {
        ChoiceOption { value, title: None }
    }
}

impl<V: Into<String>, T: Into<String>> From<(V, T)> for ChoiceOption {
    fn from((value, title): (V, T)) -> Self {
        ChoiceOption { value: value.into(), title: Some(title.into()) }
    }
}

/// A type a form field can have.
#[diagnostic::on_unimplemented(
    message = "a form field cannot be `{Self}`",
    label = "form mode cannot express this",
    note = "form fields are flat: String, bool, integers, f32/f64, an enum deriving FormChoice, \
            Vec of such an enum (several choices), Choice or Vec<Choice> (choices given at run time), \
            or Option of any of these"
)]
pub trait FormField: Sized {
    /// What kind of field this is.
    const KIND: FieldKind;
    /// Must be filled in.
    const REQUIRED: bool = true;
    /// Takes its options from the request ([`Choice`]).
    const RUNTIME_CHOICES: bool = false;

    /// The schema of the field.
    fn schema(options: &FieldOptions, choices: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String>;

    /// The value from validated content (`None` when the field was left out).
    fn from_value(value: Option<&Value>) -> Result<Self, String>;

    /// Adds this field to a schema (generated code).
    #[doc(hidden)]
    fn describe_into(
        builder: &mut super::SchemaBuilder,
        name: &'static str,
        options: &FieldOptions,
        choices: &indexmap::IndexMap<&'static str, Vec<ChoiceOption>>,
    ) -> Result<(), String> {
        builder.field::<Self>(name, options, choices)
    }

    /// Takes this field from validated content (generated code).
    #[doc(hidden)]
    fn take_from(content: &crate::model::JsonObject, name: &'static str) -> Result<Self, super::FormViolation> {
        super::take_field::<Self>(content, name)
    }
}

/// Field types whose options are given at run time.
pub trait RuntimeChoices {}

fn number(value: f64) -> Option<Number> {
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        Some(Number::from(value as i64))
    } else {
        Number::from_f64(value)
    }
}

fn missing() -> String {
    "is required".to_owned()
}

impl FormField for String {
    const KIND: FieldKind = FieldKind::Text;

    fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(PrimitiveSchemaDefinition::String(StringSchema {
            kind: StringType,
            title: options.title.map(str::to_owned),
            description: options.description.map(str::to_owned),
            min_length: options.min_length,
            max_length: options.max_length,
            format: options.format,
            default: options.default.as_ref().and_then(Value::as_str).map(str::to_owned),
        }))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        value.and_then(Value::as_str).map(str::to_owned).ok_or_else(missing)
    }
}

impl FormField for bool {
    const KIND: FieldKind = FieldKind::Boolean;

    fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(PrimitiveSchemaDefinition::Boolean(BooleanSchema {
            kind: Default::default(),
            title: options.title.map(str::to_owned),
            description: options.description.map(str::to_owned),
            default: options.default.as_ref().and_then(Value::as_bool),
        }))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        value.and_then(Value::as_bool).ok_or_else(missing)
    }
}

fn numeric_schema(
    kind: NumberType,
    options: &FieldOptions,
    type_min: Option<f64>,
    type_max: Option<f64>,
) -> PrimitiveSchemaDefinition {
    // The type's own range is part of the schema, so a client never offers what cannot be held.
    let minimum = match (options.minimum, type_min) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let maximum = match (options.maximum, type_max) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    PrimitiveSchemaDefinition::Number(NumberSchema {
        kind,
        title: options.title.map(str::to_owned),
        description: options.description.map(str::to_owned),
        minimum: minimum.and_then(number),
        maximum: maximum.and_then(number),
        default: options.default.as_ref().and_then(Value::as_f64).and_then(number),
    })
}

macro_rules! integer_field {
    ($($ty:ty),*) => {$(
        impl FormField for $ty {
            const KIND: FieldKind = FieldKind::Integer;

            fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
                let small = std::mem::size_of::<$ty>() < 8;
                let (min, max) = (<$ty>::MIN as f64, <$ty>::MAX as f64);
                Ok(numeric_schema(NumberType::Integer, options, small.then_some(min), small.then_some(max)))
            }

            fn from_value(value: Option<&Value>) -> Result<Self, String> {
                let value = value.ok_or_else(missing)?;
                value
                    .as_i64()
                    .and_then(|v| <$ty>::try_from(v).ok())
                    .or_else(|| value.as_u64().and_then(|v| <$ty>::try_from(v).ok()))
                    .or_else(|| value.as_f64().filter(|f| f.fract() == 0.0).and_then(|f| {
                        let i = f as i64;
                        <$ty>::try_from(i).ok()
                    }))
                    .ok_or_else(|| format!("must be a whole number from {} to {}", <$ty>::MIN, <$ty>::MAX))
            }
        }
    )*};
}

integer_field!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_field {
    ($($ty:ty),*) => {$(
        impl FormField for $ty {
            const KIND: FieldKind = FieldKind::Number;

            fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
                Ok(numeric_schema(NumberType::Number, options, None, None))
            }

            fn from_value(value: Option<&Value>) -> Result<Self, String> {
                value.and_then(Value::as_f64).map(|v| v as $ty).ok_or_else(missing)
            }
        }
    )*};
}

float_field!(f32, f64);

impl<T: FormField> FormField for Option<T> {
    const KIND: FieldKind = T::KIND;
    const REQUIRED: bool = false;
    const RUNTIME_CHOICES: bool = T::RUNTIME_CHOICES;

    fn schema(options: &FieldOptions, choices: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        T::schema(options, choices)
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        match value {
            None | Some(Value::Null) => Ok(None),
            present => T::from_value(present).map(Some),
        }
    }
}

/// A unit-variant enum a user picks one of (or several, in a `Vec`). Derive it with
/// `#[derive(FormChoice)]`.
pub trait FormChoice: Sized + 'static {
    /// Each variant's value and display title.
    fn options() -> Vec<ChoiceOption>;

    /// The variant with this value.
    fn from_choice(value: &str) -> Option<Self>;
}

fn single_select(options: &FieldOptions, choices: &[ChoiceOption]) -> PrimitiveSchemaDefinition {
    let default = options.default.as_ref().and_then(Value::as_str).map(str::to_owned);
    let (title, description) = (options.title.map(str::to_owned), options.description.map(str::to_owned));
    if choices.iter().any(|c| c.title.is_some()) {
        PrimitiveSchemaDefinition::TitledSingleSelectEnum(TitledSingleSelectEnumSchema {
            kind: StringType,
            title,
            description,
            one_of: choices
                .iter()
                .map(|c| TitledOption {
                    value: c.value.clone(),
                    title: c.title.clone().unwrap_or_else(|| c.value.clone()),
                })
                .collect(),
            default,
        })
    } else {
        PrimitiveSchemaDefinition::UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema {
            kind: StringType,
            title,
            description,
            values: choices.iter().map(|c| c.value.clone()).collect(),
            default,
        })
    }
}

fn multi_select(options: &FieldOptions, choices: &[ChoiceOption]) -> PrimitiveSchemaDefinition {
    let default = options
        .default
        .as_ref()
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect());
    let (title, description) = (options.title.map(str::to_owned), options.description.map(str::to_owned));
    if choices.iter().any(|c| c.title.is_some()) {
        PrimitiveSchemaDefinition::TitledMultiSelectEnum(TitledMultiSelectEnumSchema {
            kind: ArrayType,
            title,
            description,
            min_items: options.min_items,
            max_items: options.max_items,
            items: TitledItems {
                any_of: choices
                    .iter()
                    .map(|c| TitledOption {
                        value: c.value.clone(),
                        title: c.title.clone().unwrap_or_else(|| c.value.clone()),
                    })
                    .collect(),
            },
            default,
        })
    } else {
        PrimitiveSchemaDefinition::UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema {
            kind: ArrayType,
            title,
            description,
            min_items: options.min_items,
            max_items: options.max_items,
            items: UntitledItems { kind: StringType, values: choices.iter().map(|c| c.value.clone()).collect() },
            default,
        })
    }
}

impl<E: FormChoice> FormField for E {
    const KIND: FieldKind = FieldKind::Choice;

    fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(single_select(options, &E::options()))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        let text = value.and_then(Value::as_str).ok_or_else(missing)?;
        E::from_choice(text).ok_or_else(|| format!("{text:?} is not one of the choices"))
    }
}

fn many<E: FormChoice>(value: Option<&Value>) -> Result<Vec<E>, String> {
    let items = value.and_then(Value::as_array).ok_or_else(missing)?;
    items
        .iter()
        .map(|item| {
            let text = item.as_str().ok_or("must be a list of choices")?;
            E::from_choice(text).ok_or_else(|| format!("{text:?} is not one of the choices"))
        })
        .collect()
}

impl<E: FormChoice> FormField for Vec<E> {
    const KIND: FieldKind = FieldKind::MultiChoice;

    fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(multi_select(options, &E::options()))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        many(value)
    }
}

impl<E: FormChoice + Ord> FormField for BTreeSet<E> {
    const KIND: FieldKind = FieldKind::MultiChoice;

    fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(multi_select(options, &E::options()))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        Ok(many(value)?.into_iter().collect())
    }
}

impl<E: FormChoice + Eq + Hash> FormField for HashSet<E> {
    const KIND: FieldKind = FieldKind::MultiChoice;

    fn schema(options: &FieldOptions, _: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(multi_select(options, &E::options()))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        Ok(many(value)?.into_iter().collect())
    }
}

/// A value picked from options given at run time, with
/// [`FormRequest::choices`](super::FormRequest::choices): "which of these three notes".
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice(pub String);

impl std::ops::Deref for Choice {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl RuntimeChoices for Choice {}
impl RuntimeChoices for Option<Choice> {}
impl RuntimeChoices for Vec<Choice> {}

impl FormField for Choice {
    const KIND: FieldKind = FieldKind::Choice;
    const RUNTIME_CHOICES: bool = true;

    fn schema(options: &FieldOptions, choices: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(single_select(options, choices.unwrap_or_default()))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        value.and_then(Value::as_str).map(|s| Choice(s.to_owned())).ok_or_else(missing)
    }
}

impl FormField for Vec<Choice> {
    const KIND: FieldKind = FieldKind::MultiChoice;
    const RUNTIME_CHOICES: bool = true;

    fn schema(options: &FieldOptions, choices: Option<&[ChoiceOption]>) -> Result<PrimitiveSchemaDefinition, String> {
        Ok(multi_select(options, choices.unwrap_or_default()))
    }

    fn from_value(value: Option<&Value>) -> Result<Self, String> {
        let items = value.and_then(Value::as_array).ok_or_else(missing)?;
        items
            .iter()
            .map(|i| i.as_str().map(|s| Choice(s.to_owned())).ok_or_else(|| "must be a list of choices".to_owned()))
            .collect()
    }
}
