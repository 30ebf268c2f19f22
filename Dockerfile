# syntax=docker/dockerfile:1
# The Sluice image: one jar, every role (`run`, `topics create`, ...) chosen by the arguments.
# Build: docker build -t sluice:dev .   (docker-compose.yml builds it for you)
# Written without a Docker daemon at hand: see docs/operations.md.

# --- build: the production jar and the modules it needs, tests skipped (they run in CI) ---
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
COPY schemas ./schemas
COPY embedded ./embedded
COPY testkit ./testkit
COPY redis ./redis
COPY topology ./topology
COPY relay ./relay
COPY dispatcher ./dispatcher
COPY app ./app
COPY lab ./lab
# The cache mount keeps ~/.m2 between builds (BuildKit, the default builder of current Docker),
# so a rebuild after a code change does not download every dependency again.
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -DskipTests -pl app -am package

# --- runtime: a JRE and the jar, run as an unprivileged user ---
FROM eclipse-temurin:17-jre
RUN groupadd --system sluice \
 && useradd --system --gid sluice --no-create-home --home-dir /app --shell /usr/sbin/nologin sluice
WORKDIR /app
COPY --from=build /src/app/target/sluice.jar /app/sluice.jar
USER sluice
# /metrics and /health (http.port)
EXPOSE 8080
ENTRYPOINT ["java", "-jar", "/app/sluice.jar"]
CMD ["run", "--config", "/config/sluice.yaml"]
