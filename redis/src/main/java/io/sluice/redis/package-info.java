/**
 * What every role needs of Redis: the connection (standalone or cluster, TLS, credentials), Lua
 * scripts sent by digest with a reload fallback ({@code LuaScript}), the circuit that says when
 * Redis is unavailable ({@code RedisCircuit}), Redis's clock ({@code RedisTimeClock}), the slot
 * markers that tell a lost slot, and the keys this module owns ({@code RedisKeys}).
 */
package io.sluice.redis;
