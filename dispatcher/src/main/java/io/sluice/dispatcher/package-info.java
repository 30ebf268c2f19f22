/**
 * The dispatcher module's shared names: a lane's name ({@code LaneId}), built and parsed here
 * only, and the Redis keys the dispatcher owns ({@code DispatcherKeys}). The role itself is in
 * {@code dispatch}, its decisions in the packages beside it.
 */
package io.sluice.dispatcher;
