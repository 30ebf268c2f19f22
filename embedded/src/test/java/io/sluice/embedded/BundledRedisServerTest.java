package io.sluice.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which of embedded-redis's binaries fits which platform (the values of os.name and os.arch). */
class BundledRedisServerTest {

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "Linux,    amd64,   redis-server-7.0.15-linux-amd64",
        "Linux,    x86_64,  redis-server-7.0.15-linux-amd64",
        "Linux,    aarch64, redis-server-7.0.15-linux-arm64",
        "Linux,    i386,    redis-server-7.0.15-linux-386",
        "Mac OS X, x86_64,  redis-server-7.0.15-darwin-amd64",
        "Mac OS X, aarch64, redis-server-7.0.15-darwin-arm64",
    })
    void shouldPickTheBinaryOfThePlatform(String osName, String osArch, String resource) {
        assertEquals(Optional.of(resource), BundledRedisServer.resourceFor(osName, osArch));
    }

    @ParameterizedTest(name = "{0} {1} has none")
    @CsvSource({
        "Windows 11, amd64",
        "Mac OS X,   x86",
        "Linux,      riscv64",
        "FreeBSD,    amd64",
    })
    void shouldHaveNoBinaryForOtherPlatforms(String osName, String osArch) {
        assertEquals(Optional.empty(), BundledRedisServer.resourceFor(osName, osArch));
    }
}
