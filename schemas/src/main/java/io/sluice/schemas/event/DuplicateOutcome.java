package io.sluice.schemas.event;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The outcome of an event whose id was already accepted within its provider's
 * {@code dedupWindow}: it is not called; this record on {@code sluice.outcomes} says so and names
 * the first. Mirrors the {@code duplicate} form of {@code schemas/outcome.schema.json}.
 *
 * @param id        the WorkEvent id, shared with the first
 * @param tenant    the tenant (also the record key)
 * @param provider  the provider it was for
 * @param tier      the tier resolved for it
 * @param outcome   always {@link #DUPLICATE}
 * @param decidedAt epoch milliseconds when the gate found it a duplicate
 * @param first     the first record with the id: where it was read, when accepted, what the gate
 *                  did with it ({@code accepted}: on to its quota; {@code scheduled}: waiting for
 *                  its time). Its delivery is the first's own outcome, under the same id
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DuplicateOutcome(String id, String tenant, String provider, String tier, String outcome,
    long decidedAt, First first) {
  public static final String DUPLICATE = "duplicate";

  /** The first record with the id, as the gate remembered it. */
  public record First(String source, long acceptedAt, String status) {}

  public DuplicateOutcome(String id, String tenant, String provider, String tier, long decidedAt, First first) {
    this(id, tenant, provider, tier, DUPLICATE, decidedAt, first);
  }
}
