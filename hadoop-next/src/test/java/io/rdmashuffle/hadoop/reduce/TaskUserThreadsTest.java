/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Proxy;
import java.security.PrivilegedExceptionAction;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.concurrent.SubjectInheritingThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On Hadoop 3.5 our reduce-side threads run as the task's user, as Hadoop's own Fetcher and
 * EventFetcher (SubjectInheritingThread) do. The difference shows from Java 22 on, where a new
 * thread no longer inherits its creator's Subject: hadoop-next runs this test on such a Java with
 * {@code -Dhadoop.next.newerJava=/path/to/bin/java}; on Java 21 and older it is skipped.
 */
@Timeout(60)
class TaskUserThreadsTest {
  private final Map<String, String> users = new ConcurrentHashMap<>();

  private void record(String thread) {
    try {
      users.put(thread, UserGroupInformation.getCurrentUser().getShortUserName());
    } catch (java.io.IOException e) {
      users.put(thread, e.toString());
    }
  }

  /** A merge whose first wait records the fetcher thread's user and ends its loop. */
  private MergeManager<Object, Object> recordingMerger() {
    return new MergeManager<>() {
      @Override
      public void waitForResource() throws InterruptedException {
        record("fetcher");
        throw new InterruptedException("done (test)");
      }

      @Override
      public MapOutput<Object, Object> reserve(
          org.apache.hadoop.mapreduce.TaskAttemptID m, long size, int fetcher) {
        throw new UnsupportedOperationException();
      }

      @Override
      public org.apache.hadoop.mapred.RawKeyValueIterator close() {
        return null;
      }
    };
  }

  /** An umbilical whose first call records the events thread's user and ends its loop. */
  private TaskUmbilicalProtocol recordingUmbilical() {
    return (TaskUmbilicalProtocol)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {TaskUmbilicalProtocol.class},
            (proxy, method, args) -> {
              record("events");
              throw new IllegalStateException("done (test)");
            });
  }

  @Test
  void fetcherAndEventThreadsRunAsTheTaskUserAsHadoopsOwnDo() throws Exception {
    assumeTrue(
        Runtime.version().feature() >= 22,
        "threads inherit their creator's Subject on Java "
            + Runtime.version().feature()
            + ": run with -Dhadoop.next.newerJava=<Java 22+ bin/java>");
    UserGroupInformation task = UserGroupInformation.createRemoteUser("task-user-test");
    assertNotEquals(
        "task-user-test", UserGroupInformation.getCurrentUser().getShortUserName(), "login user");
    task.doAs(
        (PrivilegedExceptionAction<Void>)
            () -> {
              Thread plain = new Thread(() -> record("plain"));
              Thread hadoops = new SubjectInheritingThread(() -> record("hadoop"));
              RdmaFetcher<Object, Object> fetcher =
                  new RdmaFetcher<>(1, null, null, recordingMerger(), null, null, t -> {}, null);
              MapCompletionEvents events =
                  new MapCompletionEvents(
                      TaskAttemptID.forName("attempt_1700000000000_0001_r_000000_0"),
                      recordingUmbilical(),
                      null,
                      t -> {},
                      100);
              for (Thread t : new Thread[] {plain, hadoops, fetcher, events}) {
                t.start();
                t.join(10_000);
                assertFalse(t.isAlive(), t.getName());
              }
              return null;
            });
    // the control: here a plain thread does not carry the Subject, Hadoop's own do
    assertNotEquals("task-user-test", users.get("plain"), String.valueOf(users));
    assertEquals("task-user-test", users.get("hadoop"), String.valueOf(users));
    assertEquals("task-user-test", users.get("fetcher"), String.valueOf(users));
    assertEquals("task-user-test", users.get("events"), String.valueOf(users));
  }
}
