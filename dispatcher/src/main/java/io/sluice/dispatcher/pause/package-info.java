/**
 * Pauses: an operator's "do not call this provider (or this tenant) until I say so", kept in
 * Redis and honoured by every dispatcher.
 *
 * <ul>
 *   <li>{@link io.sluice.dispatcher.pause.PauseScope} what a pause covers, and
 *       {@link io.sluice.dispatcher.pause.Pause} the record (who, when, why);
 *       {@link io.sluice.dispatcher.pause.OperatorText} bounds what an operator typed.</li>
 *   <li>{@link io.sluice.dispatcher.pause.PauseRules}: the pure decision, "may this event be
 *       called now?", with time passed in.</li>
 *   <li>{@link io.sluice.dispatcher.pause.PausedEntries}: where a dispatcher holds the events a
 *       pause stops, bounded per provider (pure, no I/O).</li>
 *   <li>{@link io.sluice.dispatcher.pause.PauseStore} (Redis) and
 *       {@link io.sluice.dispatcher.pause.PauseWatcher}, which polls it and caches the rules:
 *       the edges.</li>
 * </ul>
 */
package io.sluice.dispatcher.pause;
