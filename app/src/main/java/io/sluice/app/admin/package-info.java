/**
 * Operating Sluice while it runs (issue 24): what the {@code pause}, {@code resume} and
 * {@code status} commands and the admin API ({@code /admin/} on the ops port) share. The checks
 * of an operator's input ({@link io.sluice.app.admin.PauseRequest}), the status read from Redis
 * and Kafka ({@link io.sluice.app.admin.StatusReader}) and the admin API's tokens
 * ({@link io.sluice.app.admin.AdminTokens}).
 */
package io.sluice.app.admin;
