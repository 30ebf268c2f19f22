package io.sluice.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.Preflight;
import io.sluice.app.admin.PauseRequest;
import io.sluice.app.admin.TenantRoutes;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisAccess;
import io.sluice.redis.tenants.EndpointSecrets;
import io.sluice.redis.tenants.StoredTenant;
import io.sluice.redis.tenants.TenantInput;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.redis.operator.OperatorJournal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice tenants get|set|delete|list|audit}: the tenant registry in Redis
 * ({@link TenantRegistry}); every gate follows a change within a second or two. The YAML file
 * stays the default: {@code delete} hands a tenant back to its entry there, else the default tier.
 * Exit codes: 0 done; 1 not found (a tenant neither registered nor in the file without a default
 * tier, a delete of no record) or refused (the registry is full); 2 a bad command line or
 * configuration (a field named in the message); 3 Redis unreachable.
 */
final class TenantCommands {
  private TenantCommands() {}

  private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(20);

  @Command(name = "tenants", mixinStandardHelpOptions = true,
      description = "Change tenants while Sluice runs: tier, quotas, shadow mode and endpoints in "
          + "Redis, over the YAML file's entries, followed by every gate and dispatcher within "
          + "seconds.",
      subcommands = {Get.class, Set.class, Delete.class, ListTenants.class, Audit.class,
          RotateSecret.class, ShowSecret.class})
  static final class TenantsCommand {}

  @Command(name = "get", mixinStandardHelpOptions = true,
      description = "Show a tenant as the gate decides it, and where that comes from.")
  static final class Get implements Callable<Integer> {
    @Mixin TenantArgument target;
    @Option(names = "--json", description = "Print JSON (as GET /admin/tenants/{id}).") boolean json;

    @Override
    public Integer call() {
      SluiceConfig c = target.config.loadForOperator();
      String id = target.id();
      if (id == null) {
        return Sluice.BAD_INPUT;
      }
      Optional<StoredTenant> stored = withRegistry(c, r -> r.get(id)).tenant();
      ObjectNode view = TenantRoutes.view(c, id, stored);
      if (view == null) {
        System.err.println("tenant \"" + id + "\" is neither in the registry nor in the file, and"
            + " there is no defaultTier");
        return Sluice.FOUND_PROBLEM;
      }
      System.out.println(json ? view.toPrettyString() : text(view));
      return 0;
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true,
      description = "Write a tenant's record. What you do not give keeps its value (the record's, "
          + "else the file's entry); a --quota or --endpoint replaces that provider's only.")
  static final class Set implements Callable<Integer> {
    @Mixin TenantArgument target;
    @Option(names = "--tier", paramLabel = "TIER", description = "A configured tier.") String tier;
    @Option(names = "--quota", paramLabel = "PROVIDER=CAPACITY,REFILL",
        description = "A quota toward a provider, like payments-api=60,20/s (repeatable).")
    List<String> quotas;
    @Option(names = "--shadow", paramLabel = "true|false", arity = "1",
        description = "Shadow mode: decide and count the tenant's events, never hold them back.")
    Boolean shadow;
    @Option(names = "--endpoint", paramLabel = "PROVIDER=URL[,rate=RATE]",
        description = "The tenant's endpoint toward a provider with endpoints: perTenant, over "
            + "the file's, like hooks=https://hooks.acme.example/in,rate=5/s (repeatable).")
    List<String> endpoints;
    @Option(names = "--remove-endpoint", paramLabel = "PROVIDER",
        description = "Remove the registry's endpoint toward PROVIDER: the file's applies again "
            + "(repeatable).")
    List<String> removeEndpoints;
    @Option(names = "--overall", paramLabel = "CAPACITY,REFILL|none",
        description = "The tenant's budget across all providers, like 100,50/s; none: no budget. "
            + "Replaces the file's overall and rules with the record's.")
    String overall;
    @Option(names = "--rule", paramLabel = "NAME=CAPACITY,REFILL[,provider=P][,path=X][,attribute=A,equals=V]",
        description = "A per-attribute rule, like refunds=5,10/h,provider=payments-api,path=refunds "
            + "(repeatable). Replaces the file's overall and rules with the record's.")
    List<String> rules;
    @Option(names = "--remove-rule", paramLabel = "NAME", description = "Remove a rule (repeatable).")
    List<String> removeRules;
    @Option(names = "--json", description = "Print JSON (as PUT /admin/tenants/{id}).") boolean json;

    @Override
    public Integer call() {
      SluiceConfig c = target.config.loadForOperator();
      String id = target.id();
      if (id == null) {
        return Sluice.BAD_INPUT;
      }
      TenantRecord current = TenantInput.current(c, id, withRegistry(c, r -> r.get(id)).tenant()
          .map(StoredTenant::record).orElse(null));
      TenantRecord given = checked(() -> TenantInput.fromCommandLine(c, id, current,
          new TenantInput.Changes(tier, quotas, shadow, endpoints, removeEndpoints, rules,
              removeRules, overall)));
      EndpointSecrets.Settled settled = given == null ? null
          : checked(() -> EndpointSecrets.settle(c, current, given, EndpointSecrets::fresh));
      if (settled == null) {
        return Sluice.BAD_INPUT;
      }
      TenantRecord record = settled.record();
      StoredTenant stored;
      try {
        stored = withRegistry(c, r -> r.put(id, record, PauseRequest.localOperator()));
      } catch (TenantRegistry.Full e) {
        System.err.println(e.getMessage());
        return Sluice.FOUND_PROBLEM;
      }
      ObjectNode view = TenantRoutes.view(c, id, Optional.of(stored));
      System.out.println(json ? view.toPrettyString() : "set " + text(view));
      // Shown once, to the operator who made the endpoint: give it to the tenant's receiver.
      settled.made().forEach((provider, secret) -> System.out.println("the signing secret of "
          + id + "'s endpoint toward " + provider + ": " + secret));
      return 0;
    }
  }

  @Command(name = "rotate-secret", mixinStandardHelpOptions = true,
      description = "Give a registry endpoint a new signing secret (printed once). The old one "
          + "signs beside it for the overlap, so the tenant's receiver can move to the new one.")
  static final class RotateSecret implements Callable<Integer> {
    @Mixin TenantArgument target;
    @Option(names = "--endpoint", paramLabel = "PROVIDER", required = true,
        description = "The provider whose endpoint's secret changes.") String provider;
    @Option(names = "--overlap", paramLabel = "DURATION", defaultValue = "24h",
        description = "How long the old secret signs too (default 24h; 0s: stops at once).")
    String overlap;
    @Option(names = "--secret-file", paramLabel = "PATH",
        description = "The new secret (whsec_...) from a file, rather than one made here.")
    Path secretFile;

    @Override
    public Integer call() throws IOException {
      SluiceConfig c = target.config.loadForOperator();
      String id = target.id();
      if (id == null) {
        return Sluice.BAD_INPUT;
      }
      String given = secretFile == null ? EndpointSecrets.fresh()
          : Files.readString(secretFile).strip();
      TenantRecord current = withRegistry(c, r -> r.get(id)).tenant().map(StoredTenant::record)
          .orElse(null);
      EndpointSecrets.Rotated rotated = checked(() -> EndpointSecrets.rotate(c, current, provider,
          given, System.currentTimeMillis(), TenantRoutes.overlap(overlap)));
      if (rotated == null) {
        return Sluice.BAD_INPUT;
      }
      withRegistry(c, r -> r.put(id, rotated.record(), PauseRequest.localOperator()));
      System.out.println("the new signing secret of " + id + "'s endpoint toward " + provider
          + ": " + rotated.secret());
      System.out.println("the previous one signs too until "
          + Instant.ofEpochMilli(rotated.previousUntilMillis()));
      return 0;
    }
  }

  @Command(name = "secret", mixinStandardHelpOptions = true,
      description = "Print the signing secrets of a registry endpoint in force now (the current "
          + "first), for its tenant's receiver. Needs secrets.sealingKeys.")
  static final class ShowSecret implements Callable<Integer> {
    @Mixin TenantArgument target;
    @Option(names = "--endpoint", paramLabel = "PROVIDER", required = true,
        description = "The provider whose endpoint's secret to print.") String provider;

    @Override
    public Integer call() {
      SluiceConfig c = target.config.loadForOperator();
      String id = target.id();
      if (id == null) {
        return Sluice.BAD_INPUT;
      }
      TenantRecord current = withRegistry(c, r -> r.get(id)).tenant().map(StoredTenant::record)
          .orElse(null);
      List<String> secrets = checked(() -> EndpointSecrets.opened(c, current, provider,
          System.currentTimeMillis()));
      if (secrets == null) {
        return Sluice.BAD_INPUT;
      }
      secrets.forEach(System.out::println);
      return 0;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true,
      description = "Remove a tenant's record: its entry in the file, else the default tier, "
          + "decides again.")
  static final class Delete implements Callable<Integer> {
    @Mixin TenantArgument target;

    @Override
    public Integer call() {
      SluiceConfig c = target.config.loadForOperator();
      String id = target.id();
      if (id == null) {
        return Sluice.BAD_INPUT;
      }
      if (!withRegistry(c, r -> r.delete(id, PauseRequest.localOperator()))) {
        System.err.println("tenant \"" + id + "\" has no registry record (nothing to delete)");
        return Sluice.FOUND_PROBLEM;
      }
      ObjectNode now = TenantRoutes.view(c, id, Optional.empty());
      System.out.println("deleted the record of " + id + "; now "
          + (now == null ? "unknown (no entry in the file, no defaultTier)" : text(now)));
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List the registry's records and the file's tenants, sorted by id.")
  static final class ListTenants implements Callable<Integer> {
    @Mixin ConfigOption config;
    @Option(names = "--prefix", paramLabel = "TEXT", description = "Only ids starting so.") String prefix;
    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
        description = "At most N (1 to 1000; default 100).") int limit;
    @Option(names = "--json", description = "Print JSON (as GET /admin/tenants).") boolean json;

    @Override
    public Integer call() {
      SluiceConfig c = config.loadForOperator();
      String p = checked(() -> TenantInput.checkPrefix(prefix));
      if (p == null || limit < 1 || limit > TenantRegistry.MAX_LIST) {
        if (p != null) {
          System.err.println("limit: expected 1 to " + TenantRegistry.MAX_LIST);
        }
        return Sluice.BAD_INPUT;
      }
      ObjectNode page = TenantRoutes.list(c, p, limit, withRegistry(c, r -> r.list(p, limit)));
      if (json) {
        System.out.println(page.toPrettyString());
        return 0;
      }
      page.path("tenants").forEach(t -> System.out.println(text((ObjectNode) t)));
      if (page.path("truncated").asBoolean()) {
        System.out.println("(more: narrow with --prefix or raise --limit)");
      }
      return 0;
    }
  }

  @Command(name = "audit", mixinStandardHelpOptions = true,
      description = "Show a tenant's last changes (at most 100, newest first): who, when, before, after.")
  static final class Audit implements Callable<Integer> {
    @Mixin TenantArgument target;
    @Option(names = "--json", description = "Print JSON (as GET /admin/tenants/{id}/audit).") boolean json;

    @Override
    public Integer call() {
      SluiceConfig c = target.config.loadForOperator();
      String id = target.id();
      if (id == null) {
        return Sluice.BAD_INPUT;
      }
      ObjectNode changes = TenantRoutes.changes(withRegistry(c, r -> r.audit(id)));
      if (json) {
        System.out.println(changes.toPrettyString());
        return 0;
      }
      if (changes.path("changes").isEmpty()) {
        System.out.println("no changes recorded for " + id);
      }
      for (JsonNode change : changes.path("changes")) {
        System.out.println(change.path("at").asText() + " " + change.path("by").asText() + ": "
            + shown(change.path("before")) + " -> " + shown(change.path("after")));
      }
      return 0;
    }
  }

  /** One line: {@code acme: tier pro, quotas payments-api=60,20/s, shadow false (registry, by ... at ...)}. */
  static String text(ObjectNode view) {
    StringBuilder out = new StringBuilder(view.path("tenant").asText()).append(": ")
        .append(shown(view));
    out.append(" (").append(view.path("source").asText());
    if (!view.path("updatedBy").isNull()) {
      out.append(", by ").append(view.path("updatedBy").asText()).append(" at ")
          .append(view.path("updatedAt").asText());
    }
    out.append(')');
    if (view.has("fileEndpoints")) {
      List<String> file = new ArrayList<>();
      view.path("fileEndpoints").fields().forEachRemaining(e -> file.add(e.getKey() + "="
          + e.getValue().asText()));
      out.append("; the file's endpoints ").append(String.join(" ", file));
    }
    if (view.has("note")) {
      out.append("; ").append(view.path("note").asText());
    }
    return out.toString();
  }

  /** A record as {@code tier pro, quotas payments-api=60,20/s, shadow false}; "none" for null. */
  private static String shown(JsonNode record) {
    if (record == null || record.isNull() || record.isMissingNode()) {
      return "none";
    }
    StringBuilder out = new StringBuilder("tier ").append(record.path("tier").asText());
    List<String> quotas = new ArrayList<>();
    record.path("quotas").fields().forEachRemaining(e -> quotas.add(e.getKey() + "="
        + e.getValue().path("capacity").asText() + "," + e.getValue().path("refill").asText()));
    out.append(", quotas ").append(quotas.isEmpty() ? "the tier's" : String.join(" ", quotas));
    out.append(", shadow ").append(record.path("shadow").asBoolean());
    List<String> endpoints = new ArrayList<>();
    record.path("endpoints").fields().forEachRemaining(e -> endpoints.add(e.getKey() + "="
        + e.getValue().path("url").asText() + (e.getValue().has("rate")
            ? ",rate=" + e.getValue().path("rate").asText() : "")));
    if (!endpoints.isEmpty()) {
      out.append(", endpoints ").append(String.join(" ", endpoints));
    }
    if (record.has("overall") || record.has("rules")) {
      JsonNode o = record.path("overall");
      out.append(", overall ").append(o.isObject() ? o.path("capacity").asText() + ","
          + o.path("refill").asText() : "none");
      List<String> rules = new ArrayList<>();
      record.path("rules").fields().forEachRemaining(e -> {
        StringBuilder r = new StringBuilder(e.getKey()).append('=')
            .append(e.getValue().path("capacity").asText()).append(',')
            .append(e.getValue().path("refill").asText());
        for (String c : List.of("provider", "path", "attribute", "equals")) {
          if (e.getValue().has(c)) {
            r.append(',').append(c).append('=').append(e.getValue().path(c).asText());
          }
        }
        rules.add(r.toString());
      });
      out.append(", rules ").append(rules.isEmpty() ? "none" : String.join(" ", rules));
    }
    return out.toString();
  }

  /** The value, or null (and why, on standard error) when it is refused. */
  /** The configuration file and the tenant named on the command line: every per-tenant command's start. */
  static final class TenantArgument {
    @Mixin ConfigOption config;
    @Parameters(index = "0", paramLabel = "TENANT") String tenant;

    /** The tenant's id as the registry keeps it, or null after printing why it is refused. */
    String id() {
      return checked(() -> TenantInput.checkId(tenant));
    }
  }

  private static <T> T checked(Supplier<T> check) {
    try {
      return check.get();
    } catch (TenantInput.Refused e) {
      System.err.println(e.getMessage());
      return null;
    }
  }

  /**
   * Runs one request on the registry: a change written to the operator topic first, then to
   * Redis. Kafka or Redis unreachable or silent is exit 3.
   */
  private static <T> T withRegistry(SluiceConfig config, Function<TenantRegistry, CompletionStage<T>> op) {
    Preflight.redis(config);
    try (RedisAccess redis = RedisAccess.open(config.redis(), "cli");
        OperatorJournal.Kafka journal = OperatorJournal.open(config)) {
      return op.apply(new TenantRegistry(redis.commands(), journal)).toCompletableFuture()
          .orTimeout(REDIS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof TenantRegistry.Full full) {
        throw full;
      }
      throw new Preflight.Unreachable("the request was not carried out: " + e.getCause());
    }
  }
}
