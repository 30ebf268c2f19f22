/**
 * The records on the topics: the work event a producer writes, its outcome, its dead letter and
 * the reasons one is written.
 */
package io.sluice.schemas.event;
