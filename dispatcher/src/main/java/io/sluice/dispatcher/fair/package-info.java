/**
 * Fairness among a provider's callers: a bounded fair queue by virtual time, tiers served by
 * weight and the tenants of one tier equally ({@code VirtualTimeScheduler}, {@code FairQueue}),
 * and one instance's part of a provider shared by several ({@code GlobalShare}). Pure: time is
 * passed in.
 */
package io.sluice.dispatcher.fair;
