/**
 * {@code sluice simulate}: recorded traffic replayed on a virtual clock through the product's own
 * decisions (the gate's token bucket, the dispatcher's fair queue and leak), for the configuration
 * in force and candidates beside it, reported per tenant, tier and provider as text, JSON and HTML.
 */
package io.sluice.app.simulate;
