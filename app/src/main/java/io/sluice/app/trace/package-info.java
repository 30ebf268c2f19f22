/**
 * {@code sluice trace ID}: an event's journey read back from the topics (produced, admitted or
 * deferred and why, each attempt's settlement, the outcome or dead letter), bounded in time and
 * in records read. {@link io.sluice.app.trace.Journey} decides what each record says (pure);
 * {@link io.sluice.app.trace.TopicSearch} finds them.
 */
package io.sluice.app.trace;
