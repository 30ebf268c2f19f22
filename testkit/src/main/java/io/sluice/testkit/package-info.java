/**
 * What the tests of every module share: the real servers they run against (a Kafka broker,
 * redis-server, a Redis cluster) resolved as JUnit parameters, the specification tables ({@code
 * SpecTable}) every implementation of a contract runs, a fake clock, and waiting for a condition.
 */
package io.sluice.testkit;
