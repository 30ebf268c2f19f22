package io.sluice.testkit;

import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.Resp;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The extension resolves one broker and one Redis per JVM, wherever a test asks for them. */
@ExtendWith(RealServers.class)
class RealServersIT {

    private static KafkaBroker kafkaFromBeforeAll;
    private final RedisServerProcess redisFromConstructor;

    RealServersIT(RedisServerProcess redis) {
        this.redisFromConstructor = redis;
    }

    @BeforeAll
    static void rememberTheBroker(KafkaBroker kafka) {
        kafkaFromBeforeAll = kafka;
    }

    @Test
    void shouldGiveTheSameRunningBrokerToLifecycleMethodsAndTests(KafkaBroker kafka) throws Exception {
        assertSame(kafkaFromBeforeAll, kafka);

        kafka.createTopic("real-servers-test", 1);

        try (Admin admin = kafka.admin()) {
            assertTrue(admin.listTopics().names().get().contains("real-servers-test"));
        }
    }

    @Test
    void shouldGiveTheSameRunningRedisToConstructorsAndTests(RedisServerProcess redis) {
        assertSame(redisFromConstructor, redis);
        assertTrue(Resp.answersPing(redis.port()));
    }

    @Test
    void shouldRefuseToStopKillOrRestartTheSharedRedis(RedisServerProcess redis) {
        UnsupportedOperationException error = assertThrows(UnsupportedOperationException.class, redis::stop);
        assertTrue(error.getMessage().contains("RedisServerProcess.start()"), error.getMessage());
        assertThrows(UnsupportedOperationException.class, redis::kill);
        assertThrows(UnsupportedOperationException.class, redis::restart);

        redis.close();

        assertTrue(redis.isRunning(), "close() of the shared Redis should do nothing");
    }

    @Test
    void shouldIgnoreCloseOfTheSharedBroker(KafkaBroker kafka) throws Exception {
        kafka.close();

        try (Admin admin = kafka.admin()) {
            assertTrue(admin.listTopics().names().get() instanceof Set);
        }
    }
}
