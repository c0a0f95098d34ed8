package io.rdmashuffle.hadoop.service;

import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.transport.ApplicationSecrets;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.SpillRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The map outputs this NodeManager serves over READs: each registered read-only on its first
 * request (its {@code file.out} mapped and registered in pieces, its index kept), kept while
 * reducers may ask again, deregistered when its job finishes or when the least recently requested
 * outputs must make room. Two bounds: registered data bytes ({@code service.maxRegisteredBytes})
 * and index bytes held in memory (the stock shuffle's own index cache setting). A reader still
 * READing an output that was deregistered gets a remote access error and asks again.
 *
 * <p>Also keeps the transport's {@link ApplicationSecrets} in step with the jobs the service
 * knows: a job's secret is there exactly while the job token is (all changes under this object's
 * lock, so a job that finishes while one of its outputs is being registered never leaves a
 * registration or a secret behind). Thread-safe; owned by {@link RdmaShuffleHandler}.
 */
final class MapOutputRegistry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MapOutputRegistry.class);

  private final MemoryRegistrar registrar;
  private final long pieceSize;
  private final long maxDataBytes;
  private final long maxIndexBytes;
  private final ApplicationSecrets secrets;
  /** The job's transport secret while its token is known to the service, else null. */
  private final Function<String, byte[]> jobSecret;
  private final LinkedHashMap<Key, Served> lru = new LinkedHashMap<>(64, 0.75f, true);
  private final Map<Key, Object> loading = new ConcurrentHashMap<>();
  private long dataBytes;
  private long indexBytes;
  private long registrations;
  private long evictions;
  private boolean closed;

  record Key(String jobId, String mapId) {}

  /** One registered map output. */
  static final class Served {
    final RegisteredFile data;
    final SpillRecord index;

    Served(RegisteredFile data, SpillRecord index) {
      this.data = data;
      this.index = index;
    }

    long indexBytes() {
      return (long) index.size() * 24;
    }

    int partitions() {
      return index.size();
    }

    IndexRecord partition(int reduce) {
      return index.getIndex(reduce);
    }
  }

  /** Loads an output: reads its index and registers its data. */
  @FunctionalInterface
  interface Loader {
    Served load() throws IOException;
  }

  /** The output is larger than the registration bound: the reducer should use HTTP for it. */
  static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException(String message) {
      super(message);
    }
  }

  MapOutputRegistry(
      MemoryRegistrar registrar,
      long pieceSize,
      long maxDataBytes,
      long maxIndexBytes,
      ApplicationSecrets secrets,
      Function<String, byte[]> jobSecret) {
    this.registrar = registrar;
    this.pieceSize = pieceSize;
    this.maxDataBytes = maxDataBytes;
    this.maxIndexBytes = maxIndexBytes;
    this.secrets = secrets;
    this.jobSecret = jobSecret;
  }

  MemoryRegistrar registrar() {
    return registrar;
  }

  long pieceSize() {
    return pieceSize;
  }

  /**
   * Makes the job's secret known to the transport if the service knows the job's token (after
   * initializeApplication, or after a NodeManager restart that recovered the token).
   *
   * @return whether the job is known
   */
  synchronized boolean admitJob(String jobId) {
    byte[] secret = jobSecret.apply(jobId);
    if (secret == null || closed) {
      secrets.remove(jobId);
      return false;
    }
    if (secrets.secretOf(jobId) == null) {
      secrets.put(jobId, secret);
    }
    return true;
  }

  /** Forgets a finished job: its secret, and every registration of its outputs. */
  void removeJob(String jobId) {
    List<Served> gone = new ArrayList<>();
    synchronized (this) {
      secrets.remove(jobId);
      for (Iterator<Map.Entry<Key, Served>> it = lru.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Key, Served> e = it.next();
        if (e.getKey().jobId().equals(jobId)) {
          gone.add(e.getValue());
          forget(e.getValue());
          it.remove();
        }
      }
    }
    for (Served s : gone) {
      s.data.close();
    }
    if (!gone.isEmpty()) {
      LOG.info("deregistered {} map outputs of finished job {}", gone.size(), jobId);
    }
  }

  /**
   * The registered output for {@code key}, loading it on first use.
   *
   * @throws TooLargeException when it alone exceeds the data bound
   * @throws IOException from the loader, or when the job finished meanwhile
   */
  Served get(Key key, Loader loader) throws IOException {
    Served s = lookup(key);
    if (s != null) {
      return s;
    }
    Object lock = loading.computeIfAbsent(key, k -> new Object());
    try {
      synchronized (lock) {
        s = lookup(key);
        if (s != null) {
          return s;
        }
        return insert(key, loader.load());
      }
    } finally {
      loading.remove(key, lock);
    }
  }

  private synchronized Served lookup(Key key) {
    return lru.get(key);
  }

  private Served insert(Key key, Served s) throws IOException {
    List<Served> evicted = new ArrayList<>();
    IOException refused = null;
    synchronized (this) {
      long size = s.data.length();
      if (closed || jobSecret.apply(key.jobId()) == null) {
        refused = new IOException("job " + key.jobId() + " finished");
      } else if (size > maxDataBytes || s.indexBytes() > maxIndexBytes) {
        refused = new TooLargeException(
            "map output " + key.mapId() + " of " + size + " bytes exceeds the registration bound "
                + maxDataBytes);
      } else {
        Iterator<Served> it = lru.values().iterator();
        while (it.hasNext()
            && (dataBytes + size > maxDataBytes || indexBytes + s.indexBytes() > maxIndexBytes)) {
          Served old = it.next();
          it.remove();
          forget(old);
          evicted.add(old);
          evictions++;
        }
        lru.put(key, s);
        dataBytes += size;
        indexBytes += s.indexBytes();
        registrations++;
      }
    }
    for (Served old : evicted) {
      old.data.close();
    }
    if (!evicted.isEmpty()) {
      LOG.debug("deregistered {} least recently requested map outputs to make room", evicted.size());
    }
    if (refused != null) {
      s.data.close();
      throw refused;
    }
    return s;
  }

  private void forget(Served s) {
    dataBytes -= s.data.length();
    indexBytes -= s.indexBytes();
  }

  synchronized long registeredBytes() {
    return dataBytes;
  }

  synchronized int registeredOutputs() {
    return lru.size();
  }

  synchronized long registrations() {
    return registrations;
  }

  synchronized long evictions() {
    return evictions;
  }

  /** Deregisters everything. Idempotent. */
  @Override
  public void close() {
    List<Served> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(lru.values());
      lru.clear();
      dataBytes = 0;
      indexBytes = 0;
    }
    for (Served s : all) {
      s.data.close();
    }
  }
}
