/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a running MapReduce job of the cluster's YARN is, as its ResourceManager and its
 * ApplicationMaster (through the ResourceManager's web proxy) answer: which application it is, on
 * which host its AM runs, how many maps completed and where, which reduce attempts are still
 * shuffling and where. Every answer is "not known now" (empty) while a REST call fails.
 */
final class MapReduceProgress {
  private final Cluster cluster;
  private final String name;

  MapReduceProgress(Cluster cluster, String name) {
    this.cluster = cluster;
    this.name = name;
  }

  /** A reduce attempt as the AM sees it. */
  record ReduceAttempt(String id, String state, String host, boolean shuffling) {}

  /** A map's successful attempt and where it ran. */
  record MapAttempt(String id, String host) {}

  /** The job's counts, its reduce attempts and its maps' successful attempts, at one moment. */
  record Snapshot(
      String application,
      String amHost,
      int mapsTotal,
      int mapsCompleted,
      List<ReduceAttempt> reduces,
      List<MapAttempt> completedMaps) {

    /** The successful map attempts of {@code host}. */
    List<String> completedOn(String host) {
      return completedMaps.stream().filter(m -> m.host().equals(host)).map(MapAttempt::id).toList();
    }

    /** Reduce attempts RUNNING that have not finished their shuffle. */
    List<ReduceAttempt> shuffling() {
      return reduces.stream().filter(r -> r.state().equals("RUNNING") && r.shuffling()).toList();
    }

    @Override
    public String toString() {
      return application
          + " (AM on "
          + amHost
          + "): maps "
          + mapsCompleted
          + "/"
          + mapsTotal
          + ", reduces "
          + reduces
          + ", completed maps "
          + completedMaps;
    }
  }

  /** The job's state now, or empty while the job is not running or its AM does not answer. */
  Optional<Snapshot> now() {
    JsonNode apps = cluster.yarn().rest("/ws/v1/cluster/apps?states=RUNNING");
    if (apps == null) {
      return Optional.empty();
    }
    for (JsonNode app : apps.path("apps").path("app")) {
      if (app.path("name").asText().equals(name)) {
        return snapshot(app.path("id").asText(), host(app.path("amHostHttpAddress").asText()));
      }
    }
    return Optional.empty();
  }

  private Optional<Snapshot> snapshot(String application, String amHost) {
    String am = "/proxy/" + application + "/ws/v1/mapreduce/jobs";
    JsonNode jobs = cluster.yarn().rest(am);
    JsonNode job = jobs == null ? null : jobs.path("jobs").path("job").path(0);
    if (job == null || job.isMissingNode()) {
      return Optional.empty();
    }
    String jobId = job.path("id").asText();
    JsonNode tasks = cluster.yarn().rest(am + "/" + jobId + "/tasks?type=r");
    if (tasks == null) {
      return Optional.empty();
    }
    List<ReduceAttempt> reduces = new ArrayList<>();
    for (JsonNode task : tasks.path("tasks").path("task")) {
      JsonNode attempts =
          cluster
              .yarn()
              .rest(am + "/" + jobId + "/tasks/" + task.path("id").asText() + "/attempts");
      if (attempts == null) {
        return Optional.empty();
      }
      for (JsonNode a : attempts.path("taskAttempts").path("taskAttempt")) {
        reduces.add(
            new ReduceAttempt(
                a.path("id").asText(),
                a.path("state").asText(),
                host(a.path("nodeHttpAddress").asText()),
                a.path("shuffleFinishTime").asLong(0) == 0));
      }
    }
    JsonNode maps = cluster.yarn().rest(am + "/" + jobId + "/tasks?type=m");
    if (maps == null) {
      return Optional.empty();
    }
    List<MapAttempt> completed = new ArrayList<>();
    for (JsonNode task : maps.path("tasks").path("task")) {
      String attempt = task.path("successfulAttempt").asText("");
      if (!task.path("state").asText().equals("SUCCEEDED") || attempt.isEmpty()) {
        continue;
      }
      JsonNode a =
          cluster
              .yarn()
              .rest(
                  am + "/" + jobId + "/tasks/" + task.path("id").asText() + "/attempts/" + attempt);
      if (a == null) {
        return Optional.empty();
      }
      completed.add(
          new MapAttempt(attempt, host(a.path("taskAttempt").path("nodeHttpAddress").asText())));
    }
    return Optional.of(
        new Snapshot(
            application,
            amHost,
            job.path("mapsTotal").asInt(),
            job.path("mapsCompleted").asInt(),
            reduces,
            completed));
  }

  /** {@code rs-h2:8042} or {@code http://rs-h2:8042} to {@code rs-h2}. */
  private static String host(String address) {
    return address.replaceFirst("^https?://", "").replaceFirst(":\\d+$", "");
  }
}
