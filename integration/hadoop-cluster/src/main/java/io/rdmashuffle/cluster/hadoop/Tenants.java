/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.hadoop;

import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.Credentials;

/**
 * The multi-user tests' tenants: a victim's job that holds its map outputs served (its reducers
 * wait in their reduce phase, after their shuffle, until released), an observer that plays the
 * on-path witness of the victim's locate answers (it holds the victim's secret, as the wire between
 * the victim's reducer and the NodeManager carries those answers in the clear), and another user's
 * reducer that, with its own job's valid secret, asks for the victim's outputs and READs what the
 * witness saw.
 */
final class Tenants {
  static final String HOLD_DIR = "rdma.cluster.hold.dir";
  static final String VICTIM_JOB = "rdma.cluster.trespass.victim.job";
  static final String VICTIM_MAPS = "rdma.cluster.trespass.victim.maps";
  static final String OBSERVED = "rdma.cluster.trespass.observed";
  static final int SHUFFLE_PORT_DEFAULT = 13562;

  private Tenants() {}

  /** The victim's reducer: announces itself, then waits until {@code release} appears. */
  public static final class HoldingReducer extends Reducer<Text, IntWritable, Text, IntWritable> {
    private final IntWritable sum = new IntWritable();

    @Override
    protected void setup(Context context) throws IOException, InterruptedException {
      Path dir = Path.of(context.getConfiguration().get(HOLD_DIR));
      Files.writeString(
          dir.resolve("holding-" + context.getTaskAttemptID()),
          context.getJobID().toString(),
          StandardCharsets.UTF_8);
      long deadline = System.nanoTime() + 900_000_000_000L;
      while (!Files.exists(dir.resolve("release")) && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
    }

    @Override
    protected void reduce(Text key, Iterable<IntWritable> values, Context context)
        throws IOException, InterruptedException {
      int s = 0;
      for (IntWritable v : values) {
        s += v.get();
      }
      sum.set(s);
      context.write(key, sum);
    }
  }

  /**
   * Another user's reducer: with its own job's shuffle secret it asks every host for the victim's
   * map outputs (naming the victim's job, then naming its own), and READs each descriptor the
   * witness saw, over a connection proving its own job. Writes one line per attempt.
   */
  public static final class TrespassingReducer
      extends Reducer<Text, IntWritable, Text, NullWritable> {
    @Override
    protected void setup(Context context) throws IOException, InterruptedException {
      Configuration conf = context.getConfiguration();
      String victim = conf.get(VICTIM_JOB);
      String own = context.getJobID().toString();
      byte[] secret = TokenCache.getShuffleSecretKey(context.getCredentials());
      SecretKey key = JobTokenSecretManager.createSecretKey(secret);
      int port = conf.getInt("mapreduce.shuffle.port", SHUFFLE_PORT_DEFAULT);
      for (Map.Entry<String, List<String>> e : maps(conf.get(VICTIM_MAPS)).entrySet()) {
        String host = e.getKey();
        Trespass.Located byJob = Trespass.locate(host, port, victim, 0, e.getValue(), key);
        line(
            context,
            "locate-victims-job " + host + " " + byJob.outcome() + " " + byJob.describesAnything());
        Trespass.Located byOwn = Trespass.locate(host, port, own, 0, e.getValue(), key);
        line(
            context,
            "locate-as-own-job " + host + " " + byOwn.outcome() + " " + byOwn.describesAnything());
      }
      String me = InetAddress.getLocalHost().getHostName();
      for (String seen : Files.readAllLines(Path.of(conf.get(OBSERVED)))) {
        String[] f = seen.split(" ");
        if (f.length < 5) {
          continue;
        }
        try {
          Trespass.Read r =
              Trespass.read(
                  new PeerAddress(f[0], Integer.parseInt(f[1])),
                  own,
                  secret,
                  Long.parseLong(f[2]),
                  Integer.parseInt(f[3]),
                  Integer.parseInt(f[4]),
                  me);
          line(context, "read " + f[0] + " " + r.bytes() + " " + oneLine(r.failure()));
        } catch (Exception ex) {
          line(context, "read " + f[0] + " 0 " + oneLine(ex.toString()));
        }
      }
    }

    @Override
    protected void reduce(Text key, Iterable<IntWritable> values, Context context) {}

    private static void line(Context context, String s) throws IOException, InterruptedException {
      context.write(new Text(s), NullWritable.get());
    }
  }

  /** {@code host:m1,m2;host2:m3} */
  static Map<String, List<String>> maps(String spec) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (String part : spec.split(";")) {
      int colon = part.indexOf(':');
      if (colon > 0) {
        m.put(
            part.substring(0, colon),
            new ArrayList<>(Arrays.asList(part.substring(colon + 1).split(","))));
      }
    }
    return m;
  }

  /**
   * {@code read TOKENS JOB OBSERVED OUT LOCAL_HOST}: READs every piece of {@code OBSERVED} again
   * with the job's own secret (a late reducer of the job, after it ended): one line each, {@code
   * host bytes failure}.
   */
  private static void readAgain(String[] args) throws Exception {
    Configuration conf = new Configuration();
    Credentials creds =
        Credentials.readTokenStorageFile(new org.apache.hadoop.fs.Path("file://" + args[1]), conf);
    byte[] secret = TokenCache.getShuffleSecretKey(creds);
    List<String> out = new ArrayList<>();
    for (String seen : Files.readAllLines(Path.of(args[3]))) {
      String[] f = seen.split(" ");
      if (f.length < 5 || seen.startsWith("#")) {
        continue;
      }
      Trespass.Read r = readPiece(f, args[2], secret, args[5]);
      out.add(f[0] + " " + r.bytes() + " " + oneLine(r.failure()));
    }
    Files.write(Path.of(args[4]), out, StandardCharsets.UTF_8);
  }

  /**
   * READs the piece {@code f} names ({@code host port address rkey length}, as a locate answer
   * gives it) for {@code job} with {@code secret} from {@code localHost}; what failed is the read's
   * failure.
   */
  private static Trespass.Read readPiece(String[] f, String job, byte[] secret, String localHost) {
    try {
      return Trespass.read(
          new PeerAddress(f[0], Integer.parseInt(f[1])),
          job,
          secret,
          Long.parseLong(f[2]),
          Integer.parseInt(f[3]),
          Integer.parseInt(f[4]),
          localHost);
    } catch (Exception ex) {
      return new Trespass.Read(0, ex.toString());
    }
  }

  static String oneLine(String s) {
    return s == null ? "-" : s.replaceAll("\\s+", "_");
  }

  /**
   * The witness (run as root, the victim's secret read from its job's staging folder): locates the
   * victim's outputs on every host, READs the first piece of each answer with the victim's secret,
   * and writes what it saw, one line per host: {@code responder-host responder-port address rkey
   * length bytes-read failure}; or, where the locate was refused, {@code # host outcome}.
   *
   * <pre>
   * Tenants observe TOKENS_FILE VICTIM_JOB HOST:MAP,...;... OUT_FILE LOCAL_HOST
   * </pre>
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 6 || !(args[0].equals("observe") || args[0].equals("read"))) {
      System.err.println(
          "usage: Tenants observe|read TOKENS_FILE JOB HOST:MAP,...;...|OBSERVED OUT_FILE"
              + " LOCAL_HOST");
      System.exit(2);
    }
    if (args[0].equals("read")) {
      readAgain(args);
      return;
    }
    Configuration conf = new Configuration();
    Credentials creds =
        Credentials.readTokenStorageFile(new org.apache.hadoop.fs.Path("file://" + args[1]), conf);
    byte[] secret = TokenCache.getShuffleSecretKey(creds);
    SecretKey key = JobTokenSecretManager.createSecretKey(secret);
    int port = conf.getInt("mapreduce.shuffle.port", SHUFFLE_PORT_DEFAULT);
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : maps(args[3]).entrySet()) {
      Trespass.Located l = Trespass.locate(e.getKey(), port, args[2], 0, e.getValue(), key);
      String piece = l.answer() == null ? null : Trespass.firstPiece(l.answer());
      if (piece == null) {
        out.add("# " + e.getKey() + " " + l.outcome());
        continue;
      }
      String[] f = piece.split(" ");
      Trespass.Read r = readPiece(f, args[2], secret, args[5]);
      out.add(piece + " " + r.bytes() + " " + oneLine(r.failure()));
    }
    Files.write(Path.of(args[4]), out, StandardCharsets.UTF_8);
  }
}
