/**
 * What a call's result becomes: {@link io.sluice.dispatcher.dispatch.settlement.CallJudge} (the
 * verdict and the lane's pause, pure) and
 * {@link io.sluice.dispatcher.dispatch.settlement.SettlementWriter} (the outcome, deferral or dead
 * letter written, and the event settled once Kafka acknowledged it).
 */
package io.sluice.dispatcher.dispatch.settlement;
