package io.sluice.dispatcher.dispatch.offsets;

import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * {@link TopicIdentity} from Kafka's own answers: {@code DescribeCluster} for the cluster id,
 * {@code DescribeTopics} for the topic id. Two small requests per question, asked when a
 * dispatcher is assigned partitions; each gives up after {@code timeout}. Needs Describe on the
 * cluster and on the topic (the dispatcher's ACLs already include reading the topic).
 */
public final class AdminTopicIdentity implements TopicIdentity, AutoCloseable {
  private final Admin admin;

  public AdminTopicIdentity(Admin admin) {
    this.admin = admin;
  }

  /** An Admin client of its own, from the Sluice config's Kafka client properties. */
  public static AdminTopicIdentity create(SluiceConfig config, String clientId, Duration timeout) {
    int millis = (int) timeout.toMillis();
    return new AdminTopicIdentity(Admin.create(config.kafka().clientProperties(Map.of(
        AdminClientConfig.CLIENT_ID_CONFIG, clientId,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis,
        AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000))));
  }

  @Override
  public CompletionStage<Ids> of(String topic) {
    CompletionStage<String> cluster = admin.describeCluster().clusterId().toCompletionStage();
    CompletionStage<TopicDescription> described = admin.describeTopics(List.of(topic))
        .topicNameValues().get(topic).toCompletionStage();
    return cluster.thenCombine(described, (c, d) -> new Ids(c, d.topicId().toString()));
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
