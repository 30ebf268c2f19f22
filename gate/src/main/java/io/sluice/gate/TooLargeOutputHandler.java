package io.sluice.gate;

import io.sluice.schemas.event.DeadLetter;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.streams.errors.DefaultProductionExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate's production exception handler. A record Kafka refuses as too large (a topic whose
 * {@code max.message.bytes} is below the gate producer's {@code max.request.size}) is
 * remembered and answered with its dead letter without the value, through Kafka Streams'
 * dead-letter records (KIP-1034), and processing resumes. Under {@code exactly_once_v2} that
 * transaction aborts all the same; the record comes back, and {@link TooLargeOutputInterceptor}
 * replaces it by the same dead letter before it is sent: the partition moves on after one abort.
 * Every other error fails, the retriable ones too (Kafka Streams' default would retry them
 * through a corrupted task, which loses input; see {@link #handleError}): the stream thread is
 * replaced and reads again from the last commit.
 */
public final class TooLargeOutputHandler implements ProductionExceptionHandler {
  private static final Logger LOG = LoggerFactory.getLogger(TooLargeOutputHandler.class);

  private final DefaultProductionExceptionHandler fallback = new DefaultProductionExceptionHandler();
  private TooLargeOutputs outputs;

  @Override
  public void configure(Map<String, ?> configs) {
    Object shared = configs.get(TooLargeOutputs.CONFIG);
    if (shared == null) {
      shared = configs.get("producer." + TooLargeOutputs.CONFIG);
    }
    if (!(shared instanceof TooLargeOutputs o)) {
      throw new IllegalArgumentException(TooLargeOutputHandler.class.getSimpleName()
          + " needs the gate's " + TooLargeOutputs.class.getSimpleName() + " under " + TooLargeOutputs.CONFIG);
    }
    this.outputs = o;
    fallback.configure(configs);
  }

  @Override
  public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
      Exception exception) {
    if (!(exception instanceof RecordTooLargeException) || !shrinkable(record)) {
      Response decided = fallback.handleError(context, record, exception);
      if (decided.result() == ProductionExceptionHandler.Result.RETRY) {
        // Not RETRY: Kafka Streams answers it with a TaskCorruptedException, and that path loses
        // input (issue 34, GateTaskRevivalIT: with the state updater, the rebalance it triggers
        // closes the revived task clean and creates it again without seeking its partitions
        // back to the last commit, so the records it had fetched past it were never processed
        // though their offsets were committed after: e99..e999 of 2,000, gone; and its
        // "commit the tasks not corrupted" step commits the open transaction with what the
        // corrupted task wrote after the failure). FAIL ends the stream thread instead; Gate
        // replaces it (REPLACE_THREAD), its transaction is aborted, and the new thread's
        // consumer starts from the last commit: everything uncommitted is read again, charged
        // again at worst (stricter, never looser).
        LOG.warn("gate: a retriable produce error ({}) on {}; ending the stream thread, which is "
            + "replaced and reads again from the last commit", exception.toString(), record.topic());
        return Response.fail();
      }
      return decided;
    }
    String why = "Kafka refused the record for " + record.topic() + " as too large ("
        + exception.getMessage() + ")";
    outputs.remember(record, why);
    String source = context == null || context.topic() == null ? null
        : DeadLetter.source(context.topic(), context.partition(), context.offset());
    LOG.warn("gate: {}; read at {}; dead-lettering it without its value", why, source);
    return Response.resume(List.of(outputs.deadLetterWithoutValue(record, why, source)));
  }

  /**
   * A record without a value (a dead letter that already lost it) is not made smaller again: a
   * topic that refuses it is misconfigured beyond what the gate can make up for, and it fails
   * like any other error.
   */
  private static boolean shrinkable(ProducerRecord<byte[], byte[]> record) {
    return record.value() != null && record.value().length > 0;
  }
}
