/**
 * What becomes of a record read from {@code sluice.ready} before it reaches a lane
 * ({@link io.sluice.dispatcher.dispatch.intake.RecordIntake},
 * {@link io.sluice.dispatcher.dispatch.intake.ReadyRecordCheck}), and how much the dispatcher may
 * hold read and not settled ({@link io.sluice.dispatcher.dispatch.intake.ReadBudget},
 * {@link io.sluice.dispatcher.dispatch.intake.ByteBudget},
 * {@link io.sluice.dispatcher.dispatch.intake.OverflowPause}). Pure decisions; the consumer loop
 * carries them out.
 */
package io.sluice.dispatcher.dispatch.intake;
