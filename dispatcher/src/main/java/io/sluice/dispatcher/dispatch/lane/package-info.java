/**
 * One provider's side of the dispatcher: {@link io.sluice.dispatcher.dispatch.lane.ProviderLane}
 * (its fair queue, leak slots and calls in flight), and the pure decisions it carries out
 * ({@link io.sluice.dispatcher.dispatch.lane.LaneSchedule},
 * {@link io.sluice.dispatcher.dispatch.lane.SlotPacer},
 * {@link io.sluice.dispatcher.dispatch.lane.ClaimAllowance}).
 */
package io.sluice.dispatcher.dispatch.lane;
