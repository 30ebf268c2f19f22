package io.sluice.app.hanging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.TopicPartition;

/** {@link TransactionsView} on Kafka's Admin client (KIP-664's describe, list and abort). */
public final class AdminTransactionsView implements TransactionsView, AutoCloseable {
  private static final long TIMEOUT_SECONDS = 10;
  /** How long writing records again may read nothing before it fails (tried at the next look). */
  private static final Duration REWRITE_STALL = Duration.ofSeconds(30);

  private final Admin admin;
  private final PartitionRewriter rewriter;

  /**
   * @param clientProperties the role's Kafka client properties, for the clients that write a
   *                         hanging transaction's records again
   * @param transactionalId  the transactional id those records are written again with
   *                         ({@link SluiceTransactionalIds#sweeper()})
   */
  public AdminTransactionsView(Admin admin, Map<String, Object> clientProperties,
      String transactionalId) {
    this.admin = admin;
    this.rewriter = new PartitionRewriter(clientProperties, transactionalId, REWRITE_STALL);
  }

  @Override
  public List<OpenTransaction> open(Collection<String> topics) throws Exception {
    List<TopicPartition> partitions = new ArrayList<>();
    admin.describeTopics(topics).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .forEach((name, description) -> description.partitions()
            .forEach(p -> partitions.add(new TopicPartition(name, p.partition()))));
    List<OpenTransaction> open = new ArrayList<>();
    admin.describeProducers(partitions).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .forEach((partition, state) -> {
          for (ProducerState p : state.activeProducers()) {
            p.currentTransactionStartOffset().ifPresent(start -> open.add(new OpenTransaction(
                partition, p.producerId(), (short) p.producerEpoch(),
                p.coordinatorEpoch().orElse(0), start)));
          }
        });
    return open;
  }

  @Override
  public Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) throws Exception {
    Collection<TransactionListing> listings = admin.listTransactions(
            new ListTransactionsOptions().filterProducerIds(producerIds))
        .all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (listings.isEmpty()) {
      return Map.of();
    }
    Map<Long, CoordinatorView> views = new HashMap<>();
    Map<String, TransactionDescription> descriptions = admin.describeTransactions(
            listings.stream().map(TransactionListing::transactionalId).toList())
        .all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    descriptions.forEach((transactionalId, d) -> views.put(d.producerId(), new CoordinatorView(
        d.producerId(), (short) d.producerEpoch(), transactionalId, d.state(),
        d.topicPartitions(), d.transactionStartTimeMs().orElse(-1))));
    return views;
  }

  @Override
  public long writeAgain(OpenTransaction t, String transactionalId) throws Exception {
    long end = admin.listOffsets(Map.of(t.partition(), OffsetSpec.latest())).all()
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(t.partition()).offset();
    return rewriter.writeAgain(t.partition(), t.startOffset(), end, transactionalId);
  }

  @Override
  public void abort(OpenTransaction t) throws Exception {
    admin.abortTransaction(new AbortTransactionSpec(t.partition(), t.producerId(),
        t.producerEpoch(), t.coordinatorEpoch())).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    rewriter.close();
    admin.close();
  }
}
