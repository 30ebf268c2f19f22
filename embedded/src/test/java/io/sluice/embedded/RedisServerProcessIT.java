package io.sluice.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;

/** A real redis-server child process: reachable, stoppable, restartable on its port, and cleaned up. */
class RedisServerProcessIT {

    @Test
    void shouldAnswerPingSetAndGetThroughLettuce() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            assertEquals("redis://127.0.0.1:" + redis.port(), redis.uri());
            assertTrue(redis.isRunning());

            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertEquals("PONG", connection.sync().ping());
                connection.sync().set("sluice:test", "42");
                assertEquals("42", connection.sync().get("sluice:test"));
            } finally {
                shutdown(client);
            }
        }
    }

    @Test
    void shouldRefuseConnectionsWhenStoppedAndAnswerOnTheSamePortWhenRestarted() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            int port = redis.port();

            redis.stop();

            assertFalse(redis.isRunning());
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close());
            RedisClient client = RedisClient.create(redis.uri());
            try {
                assertThrows(RedisConnectionException.class, client::connect);

                redis.restart();

                assertEquals(port, redis.port());
                assertTrue(redis.isRunning());
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    assertEquals("PONG", connection.sync().ping());
                }
            } finally {
                shutdown(client);
            }
        }
    }

    @Test
    void shouldRestartARunningServerWithoutItsData() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            RedisClient client = RedisClient.create(redis.uri());
            try {
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    connection.sync().set("lost-on-restart", "1");
                }

                redis.restart();

                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    assertNull(connection.sync().get("lost-on-restart"));
                }
            } finally {
                shutdown(client);
            }
        }
    }

    @Test
    void shouldStopAnsweringWhenKilled() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            redis.kill();

            assertFalse(redis.isRunning());
            assertFalse(Resp.answersPing(redis.port()));
        }
    }

    @Test
    void shouldStopAndDeleteItsDirectoryWhenClosed() {
        RedisServerProcess redis = RedisServerProcess.start();
        Path directory = redis.logFile().getParent();
        assertTrue(Files.isDirectory(directory));

        redis.close();
        redis.close(); // idempotent

        assertFalse(redis.isRunning());
        assertFalse(Resp.answersPing(redis.port()));
        assertFalse(Files.exists(directory), directory + " should be deleted");
        assertThrows(IllegalStateException.class, redis::restart);
    }

    @Test
    void shouldStartEachServerOnItsOwnPort() {
        try (RedisServerProcess first = RedisServerProcess.start();
             RedisServerProcess second = RedisServerProcess.start()) {
            assertNotEquals(first.port(), second.port());
            assertTrue(Resp.answersPing(first.port()));
            assertTrue(Resp.answersPing(second.port()));
        }
    }

    @Test
    void shouldSayWhatToDoWhenTheConfiguredBinaryIsMissing() {
        System.setProperty(RedisBinaries.SERVER_SETTING, "/nonexistent");
        try {
            IllegalStateException error = assertThrows(IllegalStateException.class, RedisServerProcess::start);

            assertTrue(error.getMessage().startsWith("SLUICE_REDIS_SERVER=/nonexistent is not an executable file"),
                    error.getMessage());
            assertTrue(error.getMessage().contains("set it to bundled"), error.getMessage());
        } finally {
            System.clearProperty(RedisBinaries.SERVER_SETTING);
        }
    }

    @Test
    void shouldRunTheRedisServerThatMavenBringsWhenAskedFor() throws Exception {
        System.setProperty(RedisBinaries.SERVER_SETTING, RedisBinaries.BUNDLED);
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            String info = Resp.call(redis.port(), "INFO server");

            assertTrue(info.contains("redis_version:" + BundledRedisServer.VERSION + "\r\n"), info);
            assertTrue(info.contains("executable:" + BundledRedisServer.extracted() + "\r\n"), info);
        } finally {
            System.clearProperty(RedisBinaries.SERVER_SETTING);
        }
    }

    static void shutdown(AbstractRedisClient client) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
