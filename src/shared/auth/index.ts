export { authMigrations } from "./migrations.js";
export { AuthError, AuthService, DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME, TRACING_WRITE, pickTenant, type ApiKeyRecord, type KeyRestriction, type Principal, type Tenant } from "./service.js";
export { authenticate, isLoopbackRequest, principalOf, requestKey, type AuthMode, type RestrictedAccess } from "./middleware.js";
export { jwtVerifier, looksLikeJwt, scopeAllows, type JwtSettings, type JwtVerifier } from "./jwt.js";
export { DEFAULT_AUTH_REFRESH_SECONDS, PLATFORM_AUTH_ENV, deploymentAuthScope, keySnapshotSchema, newerSnapshot, parseKeySnapshot, platformAuthEnv, platformKeysPath, sha256Hex, type KeySnapshot, type PlatformAuthEnvInput } from "./platform-keys.js";
