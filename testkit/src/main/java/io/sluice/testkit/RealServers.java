package io.sluice.testkit;

import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext.Store;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives tests a real Kafka broker and a real Redis, shared by every test
 * class of the test JVM, so the few seconds it takes to start them are paid once per module:
 *
 * <pre>{@code
 * @ExtendWith(RealServers.class)
 * class GateIT {
 *     @BeforeAll
 *     static void createTopics(KafkaBroker kafka) {
 *         kafka.createTopics(Map.of("gate-it.inbound", 3, "gate-it.ready", 3));
 *     }
 *
 *     @Test
 *     void shouldAdmitWithinQuota(KafkaBroker kafka, RedisServerProcess redis) { ... }
 * }
 * }</pre>
 *
 * <p>Parameters of type {@link KafkaBroker} and {@link RedisServerProcess} are resolved in
 * constructors, lifecycle methods and test methods. Each server is started lazily, the first time
 * a test asks for it (a module that only needs Redis never starts Kafka), by
 * {@link KafkaBrokers#start()} and {@link RedisServerProcess#start()}. Both are kept in the root
 * {@link ExtensionContext.Store}, which JUnit closes when the test plan of the JVM ends, and the
 * Redis child process is also killed by a JVM shutdown hook if the run is aborted.
 *
 * <p>Because the servers are shared:
 * <ul>
 *   <li>use names that are unique to the test class for topics, consumer groups, transactional
 *       ids and Redis keys (state left by earlier classes is still there);</li>
 *   <li>{@code close()} on the broker or Redis you are given does nothing, and the shared Redis
 *       refuses {@link RedisServerProcess#stop()}, {@link RedisServerProcess#kill()} and
 *       {@link RedisServerProcess#restart()} with an {@link UnsupportedOperationException}.
 *       <b>A test that stops or restarts Redis (fail-over, {@code redis_unavailable}) starts its
 *       own</b> with {@code RedisServerProcess.start()} and closes it in {@code @AfterAll}.</li>
 * </ul>
 *
 * <p>Why not {@code BeforeAllCallback}: nothing needs doing before a class runs, because the
 * servers start on first use and live for the whole JVM.
 */
public final class RealServers implements ParameterResolver {

    private static final Namespace NAMESPACE = Namespace.create(RealServers.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == KafkaBroker.class || type == RedisServerProcess.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Store store = context.getRoot().getStore(NAMESPACE);
        if (parameter.getParameter().getType() == KafkaBroker.class) {
            return store.getOrComputeIfAbsent(SharedKafka.class,
                    key -> new SharedKafka(new SharedKafkaBroker(KafkaBrokers.start())), SharedKafka.class).broker;
        }
        return store.getOrComputeIfAbsent(SharedRedis.class,
                key -> new SharedRedis(RedisServerProcess.start()), SharedRedis.class).redis;
    }

    /** Closed by JUnit with the root store, at the end of the test plan. */
    private static final class SharedKafka implements AutoCloseable {
        private final SharedKafkaBroker broker;

        SharedKafka(SharedKafkaBroker broker) {
            this.broker = broker;
        }

        @Override
        public void close() {
            broker.closeShared();
        }
    }

    /** Closed by JUnit with the root store, at the end of the test plan. */
    private static final class SharedRedis implements AutoCloseable {
        private final RedisServerProcess redis;

        SharedRedis(RedisServerProcess redis) {
            redis.markShared();
            this.redis = redis;
        }

        @Override
        public void close() {
            redis.closeNow();
        }
    }
}
