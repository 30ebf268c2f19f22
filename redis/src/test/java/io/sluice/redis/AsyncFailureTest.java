package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertSame;

import io.lettuce.core.RedisCommandTimeoutException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class AsyncFailureTest {
  private final RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("EVAL");

  @Test
  void shouldFindTheCommandsOwnFailureUnderEveryFutureWrapper() {
    assertSame(timeout, AsyncFailure.cause(
        new CompletionException(new ExecutionException(new CompletionException(timeout)))));
  }

  @Test
  void shouldKeepAFailureThatIsNoWrapperAndAWrapperWithoutACause() {
    assertSame(timeout, AsyncFailure.cause(timeout));
    CompletionException bare = new CompletionException("no cause", null);
    assertSame(bare, AsyncFailure.cause(bare));
  }
}
