/**
 * The lab: what shows, measures and breaks Sluice, never deployed. {@code demo} (the whole
 * pipeline on embedded servers, with a report), {@code bench} (the benchmarks of BENCHMARKS.md),
 * {@code chaos} (roles as OS processes, SIGKILLed and restarted, then every id reconciled). They run
 * on the embedded servers and the mock provider of {@code sluice-embedded}, and are added to the
 * application's command line in {@code lab/target/sluice-lab.jar} ({@link io.sluice.lab.cli}).
 * The application never imports this package.
 */
package io.sluice.lab;
