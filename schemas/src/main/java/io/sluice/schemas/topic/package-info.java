/**
 * The topic contracts: the topic names ({@code Topics}), the delay ladder, the {@code sluice-*}
 * headers and how they are read and written, and the writer's stamp on each record.
 */
package io.sluice.schemas.topic;
