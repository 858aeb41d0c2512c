//! What the person sees on stderr besides the result: notes, the server's log, and a progress
//! bar for progress notifications and tasks, hidden while a prompt is asking.

use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use console::StyledObject;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_rounds::model::{LoggingMessageNotificationParams, ProgressNotificationParams, Task, TaskStatus};

use crate::shown::{shown, shown_line};

/// `what`, styled for stderr (whose colours `NO_COLOR` and its terminal decide).
pub fn styled<D>(what: D) -> StyledObject<D> {
    console::style(what).for_stderr()
}

/// The terminal, if there is one, and the bar on it.
#[derive(Debug)]
pub struct Screen {
    /// Whether prompts can be shown: stdin and stderr are both a terminal.
    pub interactive: bool,
    /// Whether stderr is a terminal (bars and colours go there).
    decorated: bool,
    verbose: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Screen {
    /// Reads the terminal and `NO_COLOR` once, and sets colours for everything that draws.
    pub fn new(verbose: bool) -> Screen {
        let decorated = std::io::stderr().is_terminal();
        let interactive = decorated && std::io::stdin().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        console::set_colors_enabled(!no_color && std::io::stdout().is_terminal());
        console::set_colors_enabled_stderr(!no_color && decorated);
        Screen { interactive, decorated, verbose, bar: Mutex::new(None) }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A line on stderr, above the bar.
    pub fn note(&self, line: &str) {
        match self.bar().as_ref() {
            Some(bar) if !bar.is_hidden() => bar.suspend(|| eprintln!("{line}")),
            _ => eprintln!("{line}"),
        }
    }

    /// A message exchanged with the server (`--verbose`).
    pub fn traffic(&self, sent: bool, body: &[u8]) {
        let arrow = if sent { "→" } else { "←" };
        let body = String::from_utf8_lossy(body);
        self.note(&format!("{} {}", styled(arrow).cyan(), styled(shown(&body)).dim()));
    }

    /// The server's log: warnings and worse always, the rest with `--verbose`.
    pub fn log(&self, message: &LoggingMessageNotificationParams) {
        let level = serde_json::to_value(message.level).ok().and_then(|v| v.as_str().map(str::to_owned));
        let level = level.unwrap_or_default();
        if !self.verbose && matches!(level.as_str(), "debug" | "info" | "notice") {
            return;
        }
        let data = match message.data.as_str() {
            Some(text) => shown(text).into_owned(),
            None => crate::shown::json_line(&message.data).unwrap_or_default(),
        };
        let logger = message.logger.as_deref().map(|l| format!(" {}", shown_line(l))).unwrap_or_default();
        let level = shown_line(&level).into_owned();
        self.note(&format!("{}{logger}: {data}", styled(format!("server {level}")).yellow()));
    }

    /// A progress notification: the bar moves (a spinner when there is no total).
    pub fn progress(&self, progress: &ProgressNotificationParams) {
        if !self.decorated {
            return;
        }
        let bar = self.shown_bar();
        match progress.total {
            Some(total) if total > 0.0 => {
                bar.set_style(bar_style());
                bar.set_length(total.ceil() as u64);
                bar.set_position(progress.progress.floor() as u64);
            }
            _ => bar.set_style(spinner_style()),
        }
        if let Some(message) = &progress.message {
            bar.set_message(shown_line(message).into_owned());
        }
        bar.tick();
    }

    /// A task's state: a spinner while it works, a line when it ends.
    pub fn task(&self, task: &Task) {
        if !self.decorated {
            return;
        }
        let status = match task.status {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "waiting for input",
            TaskStatus::Completed => "completed",
            TaskStatus::Cancelled => "cancelled",
            TaskStatus::Failed => "failed",
        };
        let message = task.status_message.as_deref().map(|m| format!(": {}", shown_line(m))).unwrap_or_default();
        let line = format!("task {} {status}{message}", shown_line(&task.task_id));
        if matches!(task.status, TaskStatus::Working | TaskStatus::InputRequired) {
            let bar = self.shown_bar();
            bar.set_style(spinner_style());
            bar.set_message(line);
            bar.enable_steady_tick(Duration::from_millis(120));
        } else {
            self.clear();
            self.note(&line);
        }
    }

    fn shown_bar(&self) -> ProgressBar {
        self.bar().get_or_insert_with(|| ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())).clone()
    }

    /// Hides the bar while a prompt asks; [`Screen::unhide`] brings it back.
    pub fn hide(&self) {
        if let Some(bar) = self.bar().as_ref() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
    }

    /// Shows the bar again after a prompt.
    pub fn unhide(&self) {
        if let Some(bar) = self.bar().as_ref() {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Removes the bar, before the result is printed.
    pub fn clear(&self) {
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
    }
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner())
}
