package io.sluice.lab.bench;

/** One scenario of {@code sluice bench}: measures, and says what it measured. */
interface BenchScenario {
  /** The name on the command line, e.g. {@code gate}. */
  String name();

  /** Runs on the context's servers and returns its figures. */
  ScenarioResult run(BenchContext ctx) throws Exception;
}
