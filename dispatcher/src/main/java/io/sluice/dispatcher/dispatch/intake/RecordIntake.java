package io.sluice.dispatcher.dispatch.intake;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.offsets.OffsetLedger;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * What becomes of a record read from {@code sluice.ready}, before it reaches a lane. The rules, in
 * order (each record takes the first that applies):
 * <ol>
 *   <li>the previous owner's commit said it was settled, or the {@link DeliveredLog} does (its
 *       outcome, deferral or dead letter was acknowledged beyond the commit): skipped, never called
 *       again;
 *   <li>it is a second copy of a settlement this assignment read already (a retry written twice
 *       after a produce timed out, both copies naming the record they settle in {@code
 *       sluice-settles}): skipped, never called; its first copy is called;
 *   <li>it is not a well-formed event ({@link ReadyRecordCheck}): dead-lettered at once;
 *   <li>a call of it was delivered beyond the commit ({@link DeliveredLog}): the provider is not
 *       called again; it waits for the previous owner's outcome, or has its own written after a
 *       grace ({@link io.sluice.dispatcher.dispatch.offsets.SettlementGrace});
 *   <li>its deadline has passed: dead as expired, without a call;
 *   <li>else it is queued in its provider's lane.
 * </ol>
 * So an event's own faults are decided here, before it takes any leak slot. No I/O: this keeps
 * the partition's books (the offset is tracked, a skipped one settled, an inherited delivery read
 * once) and says what to do; the dispatcher writes and queues. Consumer thread only; replaced whole
 * by a configuration reload.
 */
public final class RecordIntake {
  /** What to do with one record. */
  public sealed interface Action {}

  /** Settled by the previous owner: nothing to do (its offset is settled already). */
  public record SettledBefore() implements Action {}

  /**
   * A second copy of the settlement {@code settles}: nothing to do (its offset is settled
   * already), the first copy being handled.
   */
  public record SecondCopy(String settles) implements Action {}

  /**
   * At or below an offset this assignment read already (the consumer's position went back): it is
   * being handled from its first read, or was; nothing to do. This stopped the dispatcher's thread
   * for good before ({@link OffsetLedger#read} refuses offsets out of order).
   */
  public record ReadAgain(long offset) implements Action {}

  /** Dead-letter {@code entry} (which may hold no event) with {@code reason}. */
  public record Malformed(DispatchEntry entry, Reason reason, String detail) implements Action {}

  /**
   * A call already delivered, with its status and attempts: settled by its previous owner's
   * outcome, or by one written here after a grace.
   */
  public record DeliveredBefore(DispatchEntry entry, DeliveredLog.Delivered delivered) implements Action {}

  /** Dead-letter {@code entry} as expired. */
  public record Expired(DispatchEntry entry, String detail) implements Action {}

  /** Queue {@code entry} in its provider's lane. */
  public record Queue(DispatchEntry entry) implements Action {}

  private final ReadyRecordCheck check;

  public RecordIntake(ReadyRecordCheck check) {
    this.check = check;
  }

  /** Takes {@code record}, read by {@code assignment}, at {@code now}. */
  public Action admit(ConsumerRecord<byte[], byte[]> record, OwnedPartitions.Assignment assignment,
      Instant now) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    OffsetLedger offsets = assignment.offsets();
    if (offsets.readBefore(record.offset())) {
      return new ReadAgain(record.offset());
    }
    boolean settledBefore = !offsets.read(record.offset());
    DeliveredLog.Delivered before = assignment.deliveredBefore().remove(record.offset());
    // Seen even when settled before: a second copy read after it is still a second copy.
    String settles = HeaderValues.last(record.headers(), HeaderNames.SETTLES).orElse(null);
    boolean secondCopy = settles != null && !assignment.settlements().firstSight(settles);
    if (settledBefore || (before != null && before.settled())) {
      // The previous owner settled it after its last committed offset and said so in the
      // commit's metadata or in the log: calling it again would be a duplicate, and writing its
      // deferral again would bring the event back twice.
      offsets.settle(record.offset()); // when only the log said so
      offsets.forgetCommitted();
      return new SettledBefore();
    }
    if (secondCopy) {
      offsets.settle(record.offset());
      offsets.forgetCommitted();
      return new SecondCopy(settles);
    }
    Headers headers = new RecordHeaders(record.headers().toArray());
    ReadyRecordCheck.Verdict verdict;
    try {
      verdict = check.check(record.value(), headers);
    } catch (RuntimeException e) {
      // Whatever a malformed record throws, the consumer thread must live on.
      verdict = new ReadyRecordCheck.Reject(Reason.INVALID, "not a work event: " + e);
    }
    if (verdict instanceof ReadyRecordCheck.Reject reject) {
      DispatchEntry broken = new DispatchEntry(tp, record.offset(), assignment.generation(),
          record.key(), record.value(), headers, null, null,
          HeaderValues.lastLong(headers, HeaderNames.ATTEMPT).map(Long::intValue).orElse(0),
          HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(null), record.timestamp());
      return new Malformed(broken, reject.reason(), reject.detail());
    }
    ReadyRecordCheck.Dispatch ok = (ReadyRecordCheck.Dispatch) verdict;
    WorkEvent event = ok.event();
    DispatchEntry entry = new DispatchEntry(tp, record.offset(), assignment.generation(),
        record.key(), record.value(), headers, event, ok.tier(), ok.attempts(), ok.firstSeen(),
        record.timestamp());
    if (before != null) {
      // Delivered already (by the previous owner, or by us before a broker restart), its outcome
      // perhaps never written.
      return new DeliveredBefore(entry, before);
    }
    if (event.deadline() != null && now.isAfter(event.deadline())) {
      return new Expired(entry, "deadline " + event.deadline() + " passed before its call");
    }
    return new Queue(entry);
  }
}
