// An OAuth 2.1 authorization server for the tests: oidc-provider issuing JWT access tokens
// (RFC 9068) with the client-credentials grant and resource indicators (RFC 8707), on loopback;
// and, for a person's client, the authorization code grant with PKCE, its login and consent
// pages (oidc-provider's development interactions: any login, any password), and refresh tokens
// for `offline_access`.
//
//   node authorization-server.mjs [--alg RS256|ES256|EdDSA] [--opaque] [--access-token-ttl SECONDS]
//
// With --opaque, access tokens are opaque strings instead of JWTs, for resource servers that
// check them at the introspection endpoint (RFC 7662), as the client `notes-introspector`.
//
// It listens on 127.0.0.1 on a free port and prints exactly one line to stdout,
// `listening on http://127.0.0.1:PORT`; everything else goes to stderr. It exits when its
// stdin closes or on SIGTERM. Besides oidc-provider's own endpoints it answers, for the tests:
//
//   GET  /__control/stats   {"jwksRequests": n, "tokenRequests": m, "introspectionRequests": k},
//                           counted since start
//   GET  /__control/keys    the published signing keys and the unpublished ones
//   POST /__control/rotate  replace the published keys by fresh ones (new kids) and answer
//                           with them; the old ones leave the JWKS and sign nothing more
//   POST /__control/revoke-refresh-tokens
//                           revoke every refresh token issued so far (as an administrator
//                           would); answers {"revoked": n}
//
// A key is described as {kid, alg, published, privatePem (PKCS#8), publicPem (SPKI), publicJwk}.
// The unpublished keys (one per algorithm) are never in the JWKS: tests sign tokens with them
// that the resource server must refuse.

// oidc-provider prints its notices with console.info; stdout is for the one line above.
console.info = console.error;
console.log = console.error;

import * as crypto from 'node:crypto';
import * as http from 'node:http';

import Provider from 'oidc-provider';

const ALGS = ['RS256', 'ES256', 'EdDSA'];

function parseArgs(argv) {
  let alg = 'ES256';
  let opaque = false;
  let accessTokenTtl = 600;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--alg' && i + 1 < argv.length) {
      alg = argv[(i += 1)];
    } else if (argv[i] === '--opaque') {
      opaque = true;
    } else if (argv[i] === '--access-token-ttl' && i + 1 < argv.length) {
      accessTokenTtl = Number(argv[(i += 1)]);
    } else {
      throw new Error(`unknown argument ${argv[i]}; usage: authorization-server.mjs [--alg RS256|ES256|EdDSA] [--opaque]`);
    }
  }
  if (!ALGS.includes(alg)) throw new Error(`--alg must be one of ${ALGS.join(', ')}, not ${alg}`);
  return { alg, opaque, accessTokenTtl };
}

const { alg: signingAlg, opaque, accessTokenTtl } = parseArgs(process.argv.slice(2));

// The scopes of the resource servers, and the clients (RFC 6749 client-credentials only).
const SCOPE = 'notes:read notes:write';
const CLIENTS = [
  { client_id: 'notes-full', client_secret: 'notes-full-secret-0123456789', scope: 'notes:read notes:write' },
  { client_id: 'notes-reader', client_secret: 'notes-reader-secret-0123456789', scope: 'notes:read' },
].map((client) => ({
  ...client,
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
}));
// A person's client (a native application, RFC 8252): public, PKCE, a loopback redirect on any
// port, refresh tokens with offline_access.
CLIENTS.push({
  client_id: 'notes-agent',
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  redirect_uris: ['http://127.0.0.1/callback'],
});
// The resource servers' own credentials, for the introspection endpoint: it obtains no tokens.
CLIENTS.push({
  client_id: 'notes-introspector',
  client_secret: 'notes-introspector-secret-0123456789',
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: [],
  redirect_uris: [],
  response_types: [],
});
// The audience of a token requested without a resource indicator: no resource server's.
const DEFAULT_RESOURCE = 'urn:mcp-rounds-tests:no-resource';
const ACCESS_TOKEN_TTL = accessTokenTtl;
const ROUTES = { jwks: '/jwks', token: '/token', introspection: '/introspect' };

function generateKey(alg, published) {
  const { privateKey, publicKey } = alg === 'RS256'
    ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
    : alg === 'ES256'
      ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : crypto.generateKeyPairSync('ed25519');
  const kid = crypto.randomBytes(12).toString('base64url');
  const meta = { kid, alg, use: 'sig' };
  return {
    kid,
    alg,
    published,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), ...meta },
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }),
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }),
    publicJwk: { ...publicKey.export({ format: 'jwk' }), ...meta },
  };
}

const describe = ({ privateJwk, ...key }) => key;

// The whole state lives here, so that a new Provider (after a rotation) sees the same grants.
const storage = new Map();
class MemoryAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const expires = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
    storage.set(this.key(id), { payload, expires });
    if (payload.grantId) {
      const grant = `grant:${payload.grantId}`;
      storage.set(grant, { payload: [...(storage.get(grant)?.payload ?? []), this.key(id)], expires });
    }
    if (payload.userCode) storage.set(`userCode:${payload.userCode}`, { payload: id, expires });
    if (payload.uid) storage.set(`uid:${payload.uid}`, { payload: id, expires });
  }

  read(key) {
    const entry = storage.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      storage.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  async find(id) {
    return this.read(this.key(id));
  }

  async findByUserCode(userCode) {
    const id = this.read(`userCode:${userCode}`);
    return id && this.find(id);
  }

  async findByUid(uid) {
    const id = this.read(`uid:${uid}`);
    return id && this.find(id);
  }

  async consume(id) {
    const payload = this.read(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    storage.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    for (const key of this.read(`grant:${grantId}`) ?? []) storage.delete(key);
    storage.delete(`grant:${grantId}`);
  }
}

const cookieKeys = [crypto.randomBytes(32).toString('base64url')];

function makeProvider(issuer, publishedKeys) {
  return new Provider(issuer, {
    adapter: MemoryAdapter,
    clients: CLIENTS,
    jwks: { keys: publishedKeys.map((key) => key.privateJwk) },
    scopes: ['openid', 'offline_access', 'notes:read', 'notes:write'],
    routes: ROUTES,
    cookies: { keys: cookieKeys },
    clientBasedCORS: () => false,
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    ttl: { ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? ACCESS_TOKEN_TTL },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => DEFAULT_RESOURCE,
        getResourceServerInfo: async (_ctx, resourceIndicator) => ({
          scope: SCOPE,
          audience: resourceIndicator,
          accessTokenTTL: ACCESS_TOKEN_TTL,
          accessTokenFormat: opaque ? 'opaque' : 'jwt',
          jwt: { sign: { alg: signingAlg } },
        }),
      },
    },
  });
}

function answer(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const newPublishedKeys = () => ALGS.map((alg) => generateKey(alg, true));
let publishedKeys = newPublishedKeys();
const unpublishedKeys = ALGS.map((alg) => generateKey(alg, false));
const stats = { jwksRequests: 0, tokenRequests: 0, introspectionRequests: 0 };
let provider;
let callback;

function control(req, res, path) {
  if (req.method === 'GET' && path === '/__control/stats') {
    answer(res, 200, stats);
  } else if (req.method === 'GET' && path === '/__control/keys') {
    answer(res, 200, [...publishedKeys, ...unpublishedKeys].map(describe));
  } else if (req.method === 'POST' && path === '/__control/revoke-refresh-tokens') {
    const refreshTokens = [...storage.keys()].filter((key) => key.startsWith('RefreshToken:'));
    for (const key of refreshTokens) storage.delete(key);
    answer(res, 200, { revoked: refreshTokens.length });
  } else if (req.method === 'POST' && path === '/__control/rotate') {
    const keys = newPublishedKeys();
    const next = makeProvider(provider.issuer, keys);
    publishedKeys = keys;
    provider = next;
    callback = next.callback();
    answer(res, 200, keys.map(describe));
  } else {
    answer(res, 404, { error: 'not_found', path });
  }
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path.startsWith('/__control/')) {
    control(req, res, path);
    return;
  }
  if (path === ROUTES.jwks) stats.jwksRequests += 1;
  if (path === ROUTES.token) stats.tokenRequests += 1;
  if (path === ROUTES.introspection) stats.introspectionRequests += 1;
  callback(req, res);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  provider = makeProvider(`http://127.0.0.1:${port}`, publishedKeys);
  callback = provider.callback();
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});

function stop() {
  server.close();
  server.closeAllConnections();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();

// Surface errors (a bad configuration, a failed request) on stderr rather than dying silently.
process.on('uncaughtException', (error) => {
  console.error('authorization server error:', error);
  process.exit(1);
});
