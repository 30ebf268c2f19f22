/**
 * Ordering keys' turns, shared by the gate and the dispatcher: the keys ({@code OrderKeys}), the
 * ticket an ordered event carries ({@code OrderTicket}, header {@code sluice-order}), the pure
 * decision of whether an event is its key's head ({@code OrderTurn}), and the store on Redis
 * ({@code RedisOrderStore}, {@code lua/ordering.lua}). See {@code docs/ordering.md}.
 */
package io.sluice.redis.order;
