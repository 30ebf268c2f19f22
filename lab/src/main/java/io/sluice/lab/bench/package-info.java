/**
 * The benchmarks: one scenario per measured property (throughput, latency, fairness, scaling,
 * limiter cost), run on embedded servers, and the tables and charts of BENCHMARKS.md generated
 * from their reports.
 */
package io.sluice.lab.bench;
