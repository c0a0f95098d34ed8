package io.rdmashuffle.hadoop.service;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.ApplicationSecrets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.mapred.SpillRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class MapOutputRegistryTest {
  @TempDir Path dir;
  private final CountingRegistrar registrar = new CountingRegistrar();
  private final ApplicationSecrets secrets = new ApplicationSecrets();
  private final Set<String> jobs = ConcurrentHashMap.newKeySet();
  private MapOutputRegistry registry;
  private final AtomicInteger loads = new AtomicInteger();

  @BeforeEach
  void create() {
    registry = registry(10_000, 1 << 20);
    jobs.add("job_1_0001");
    jobs.add("job_1_0002");
  }

  private MapOutputRegistry registry(long maxData, long maxIndex) {
    return new MapOutputRegistry(registrar, 4096, maxData, maxIndex, secrets,
        j -> jobs.contains(j) ? new byte[32] : null);
  }

  @AfterEach
  void close() {
    registry.close();
    assertEquals(0, registrar.accounting().registeredBytes(), "everything deregistered");
  }

  private MapOutputRegistry.Loader output(String name, int bytes, int partitions) {
    return () -> {
      loads.incrementAndGet();
      Path p = Patterns.file(dir.resolve(name), bytes, 1);
      return new MapOutputRegistry.Served(
          RegisteredFile.open(p, 4096, registrar, "job"), new SpillRecord(partitions));
    };
  }

  private static MapOutputRegistry.Key key(int job, String map) {
    return new MapOutputRegistry.Key("job_1_000" + job, map);
  }

  @Test
  void registersOnFirstRequestOnlyAndEvictsTheLeastRecentlyRequested() throws Exception {
    MapOutputRegistry.Served a = registry.get(key(1, "a"), output("a", 4000, 2));
    assertSame(a, registry.get(key(1, "a"), output("a", 4000, 2)));
    registry.get(key(1, "b"), output("b", 4000, 2));
    registry.get(key(1, "a"), output("a", 4000, 2)); // a is now more recent than b
    registry.get(key(1, "c"), output("c", 4000, 2)); // 12000 > 10000: b goes
    assertEquals(3, loads.get());
    assertEquals(8000, registry.registeredBytes());
    assertEquals(1, registry.evictions());
    registry.get(key(1, "a"), output("a", 4000, 2));
    assertEquals(3, loads.get(), "a stayed registered");
    registry.get(key(1, "b"), output("b", 4000, 2));
    assertEquals(4, loads.get(), "b was registered again");
    assertEquals(8000, registrar.accounting().registeredBytes());
  }

  @Test
  void indexBytesAreBoundedToo() throws Exception {
    registry.close();
    registry = registry(1 << 20, 24 * 100);
    registry.get(key(1, "a"), output("a", 100, 60));
    registry.get(key(1, "b"), output("b", 100, 60)); // 120 partitions of index > 100
    assertEquals(1, registry.registeredOutputs());
  }

  @Test
  void anOutputLargerThanTheBoundIsNotRegistered() throws Exception {
    assertThrows(MapOutputRegistry.TooLargeException.class,
        () -> registry.get(key(1, "huge"), output("huge", 20_000, 1)));
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void aFinishedJobLosesItsRegistrationsAndSecretAndCantRegisterMore() throws Exception {
    assertTrue(registry.admitJob("job_1_0001"));
    assertNotNull(secrets.secretOf("job_1_0001"));
    registry.get(key(1, "a"), output("a", 1000, 1));
    registry.get(key(2, "a"), output("a2", 1000, 1));
    jobs.remove("job_1_0001");
    registry.removeJob("job_1_0001");
    assertNull(secrets.secretOf("job_1_0001"));
    assertEquals(1000, registry.registeredBytes());
    assertFalse(registry.admitJob("job_1_0001"));
    assertThrows(java.io.IOException.class, () -> registry.get(key(1, "b"), output("b", 10, 1)));
    assertEquals(1000, registrar.accounting().registeredBytes());
  }

  @Test
  void concurrentFirstRequestsRegisterOnce() throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    Set<MapOutputRegistry.Served> seen = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 8; i++) {
      Thread t = new Thread(() -> {
        try {
          go.await();
          seen.add(registry.get(key(1, "x"), output("x", 3000, 1)));
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      t.start();
      threads.add(t);
    }
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(1, seen.size());
    assertEquals(1, loads.get());
  }
}
