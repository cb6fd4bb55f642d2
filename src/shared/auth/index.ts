export { authMigrations } from "./migrations.js";
export { AuthError, AuthService, DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME, pickTenant, type Principal } from "./service.js";
export { authenticate, isLoopbackRequest, principalOf, requestKey, type AuthMode } from "./middleware.js";
export { jwtVerifier, looksLikeJwt, scopeAllows, type JwtSettings, type JwtVerifier } from "./jwt.js";
