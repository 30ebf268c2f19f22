/**
 * The demo: a load against embedded Kafka, Redis and mock providers that shows quotas, capacity
 * and tiers at work, and its report (an HTML page with SVG charts).
 */
package io.sluice.lab.demo;
