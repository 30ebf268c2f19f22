/**
 * The dispatcher role: {@link io.sluice.dispatcher.dispatch.Dispatcher} (the consumer loop),
 * {@link io.sluice.dispatcher.dispatch.DispatcherWiring} (what it needs from outside),
 * {@link io.sluice.dispatcher.dispatch.DispatcherService} (how the application runs it), and the
 * vocabulary its parts share ({@link io.sluice.dispatcher.dispatch.DispatchEntry},
 * {@link io.sluice.dispatcher.dispatch.DispatchListener}). The parts, one package each:
 * {@code intake} (what becomes of a record read, and how much may be held), {@code lane} (one
 * provider's queue, leak slots and calls), {@code settlement} (judging a call's result and writing
 * what settles it), {@code offsets} (what to commit, what a new owner inherits, the delivered log).
 */
package io.sluice.dispatcher.dispatch;
