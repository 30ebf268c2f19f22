/**
 * One provider's side of the dispatcher: {@link io.sluice.dispatcher.dispatch.lane.ProviderLane}
 * runs the steps (claim, fire, call, settle) and holds the lane's monitor; its parts, each called
 * under that monitor, keep one concern each: the queue and its weights ({@code LaneQueue}), the
 * talk with the shared leak ({@code LaneLeak}), the calls not yet judged ({@code UnjudgedCalls}),
 * the call itself ({@code LaneCall}). The decisions it carries out are pure and take time as an
 * argument: {@link io.sluice.dispatcher.dispatch.lane.LaneSchedule},
 * {@link io.sluice.dispatcher.dispatch.lane.SlotPacer},
 * {@link io.sluice.dispatcher.dispatch.lane.ClaimAllowance}, what a due slot does
 * ({@code SlotUse}), when busy tenants are published ({@code ShareCadence}), which entries wait
 * in Kafka ({@code LaneParking}, {@link io.sluice.dispatcher.dispatch.lane.ParkingSchedule}), and
 * a settlement's orders ({@link io.sluice.dispatcher.dispatch.lane.LaneOrder}).
 */
package io.sluice.dispatcher.dispatch.lane;
