package io.sluice.redis.order;

/**
 * Where one ordering key stands, as {@code ordering.lua} reads it.
 *
 * @param epoch   when the key's turns began (its tickets carry it)
 * @param next    the seq whose turn it is: the first given and not yet settled
 * @param blocked the seqs up to this one are dead-lettered {@code blocked_by_head} at their turn
 *                (their head was dead-lettered and the provider says {@code orderingOnDeadHead:
 *                deadLetter}); 0: none
 */
public record KeyTurn(long epoch, long next, long blocked) {}
