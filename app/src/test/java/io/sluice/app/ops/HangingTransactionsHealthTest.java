package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.hanging.CoordinatorView;
import io.sluice.app.hanging.HangingTransactionSweeper;
import io.sluice.app.hanging.OpenTransaction;
import io.sluice.app.hanging.TransactionsView;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HangingTransactionsHealthTest {

  @Test
  void saysWhatFailsAndWhatThePrincipalNeedsWithoutMakingTheInstanceDown() {
    HangingTransactionSweeper sweeper = new HangingTransactionSweeper(new DeniedView(),
        List.of("sluice.ready"), Duration.ofSeconds(30), FakeClock.atMillis(0), id -> true,
        new HangingTransactionSweeper.Outcomes() {
          @Override
          public void ended(OpenTransaction t, long writtenAgain) {
          }

          @Override
          public void held(OpenTransaction t) {
          }

          @Override
          public void failed(HangingTransactionSweeper.Failure kind) {
          }
        });
    sweeper.sweep();

    HealthReport report = new Health(List.of(HangingTransactionsHealth.of(sweeper)), Map.of())
        .report();

    assertTrue(report.up(), "informational");
    String detail = HangingTransactionsHealth.of(sweeper).check().detail();
    assertTrue(detail.contains("look failing"), detail);
    assertTrue(detail.contains("TopicAuthorizationException"), detail);
    assertTrue(detail.contains("Read and Describe on each topic it reads"), detail);
  }

  @Test
  void saysWhenTheSweeperIsOff() {
    HealthCheck.Result result = HangingTransactionsHealth.of(null).check();

    assertTrue(result.reachable());
    assertEquals("off (kafka.hangingTransactions.sweep: false): an operator ends hanging "
        + "transactions", result.detail());
  }

  /** A cluster whose ACLs deny this principal Describe on the topics. */
  private static final class DeniedView implements TransactionsView {
    @Override
    public List<OpenTransaction> open(Collection<String> topics) {
      throw new org.apache.kafka.common.errors.TopicAuthorizationException(Set.copyOf(topics));
    }

    @Override
    public Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) {
      return Map.of();
    }

    @Override
    public long writeAgain(OpenTransaction transaction, String transactionalId) {
      return 0;
    }

    @Override
    public void abort(OpenTransaction transaction) {
    }
  }
}
