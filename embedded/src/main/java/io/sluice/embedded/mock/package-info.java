/**
 * The mock provider for tests and the lab: an HTTP server that answers as a rate-limited partner
 * API would (a sliding-window limit, 429s with Retry-After, announced limits), and records each
 * call to check against.
 */
package io.sluice.embedded.mock;
