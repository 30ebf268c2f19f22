/**
 * The tenant registry: tenants' tiers, quotas, shadow flags, overall budgets, rules and endpoints
 * changed while Sluice runs, kept in Redis over the YAML file's entries, and followed by every gate
 * and (for endpoints) every dispatcher with a per-tenant provider (see docs/tenants.md).
 *
 * <ul>
 *   <li>{@link io.sluice.redis.tenants.TenantRecord} what a record holds and how it overrides the
 *       file ({@code effective}, {@code endpointOf}); {@link io.sluice.redis.tenants.TenantInput}
 *       operator input, checked against the configuration and bounded, with
 *       {@link io.sluice.redis.tenants.EndpointInput} for endpoints and {@code BudgetInput} for
 *       rules; {@link io.sluice.redis.tenants.TenantCodec} its JSON.</li>
 *   <li>{@link io.sluice.redis.tenants.TenantCache}: the pure decisions of a gate's copy (what is
 *       kept, when to ask Redis, what a change forgets, Redis down).</li>
 *   <li>{@link io.sluice.redis.tenants.TenantRegistry} (Redis, {@code lua/tenants.lua}) and
 *       {@link io.sluice.redis.tenants.TenantWatcher}, which polls its changes and answers the
 *       gate's look-ups ({@link io.sluice.redis.tenants.TenantLookup}): the edges.</li>
 * </ul>
 */
package io.sluice.redis.tenants;
