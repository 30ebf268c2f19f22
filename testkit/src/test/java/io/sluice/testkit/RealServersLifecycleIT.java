package io.sluice.testkit;

import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.Resp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs a test class in a nested JUnit engine and checks that the Redis the extension shared with
 * it is gone when that engine's test plan ends. (Redis only: one more broker would cost seconds
 * and the broker goes through the same store.)
 */
class RealServersLifecycleIT {

    @Test
    void shouldStopTheSharedRedisWhenTheTestPlanEnds() {
        RedisUser.seen.clear();

        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(RedisUser.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.succeeded(2).failed(0));

        assertEquals(1, RedisUser.seen.size(), "both nested tests should share one Redis: " + RedisUser.seen);
        RedisServerProcess shared = RedisUser.seen.iterator().next();
        assertFalse(shared.isRunning());
        assertFalse(Resp.answersPing(shared.port()));
        Path directory = shared.logFile().getParent();
        assertFalse(Files.exists(directory), directory + " should be deleted");
    }

    /** Not run by Surefire on its own (nested class); run by the test above. */
    @ExtendWith(RealServers.class)
    static class RedisUser {
        static final Set<RedisServerProcess> seen = ConcurrentHashMap.newKeySet();

        @Test
        void first(RedisServerProcess redis) {
            seen.add(redis);
            assertTrue(Resp.answersPing(redis.port()));
        }

        @Test
        void second(RedisServerProcess redis) {
            seen.add(redis);
            assertTrue(Resp.answersPing(redis.port()));
        }
    }
}
