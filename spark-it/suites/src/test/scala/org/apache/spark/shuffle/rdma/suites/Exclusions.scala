/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma.suites

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import io.rdmashuffle.config.RdmaConf
import io.rdmashuffle.metrics.TransportMetrics
import io.rdmashuffle.node.TransportSelector
import io.rdmashuffle.transport.handshake.ApplicationSecrets

import org.apache.spark.SPARK_VERSION
import org.apache.spark.shuffle.rdma.SparkConfig

/**
 * The checked-in list of Spark tests we skip (`spark-it/suites/exclusions.txt`, its path in the
 * system property `rdma.suites.exclusions`). One line per test:
 * {{{
 *   suite | test name | side | Spark lines | reason
 * }}}
 * side `ours` skips it only with our manager (a Spark internal our design changes), `both` also in
 * the stock control (the harness can't run it), `copies` only with our manager where the run's
 * transport pins served files as private copies (verbs on Linux before 6.2: the bytes served are
 * those committed, whatever is written to the file later); Spark lines `all` or e.g. `3.5,4.0`.
 */
object Exclusions {
  final case class Entry(suite: String, test: String, side: String, lines: String, reason: String)

  lazy val path: String = sys.props.getOrElse("rdma.suites.exclusions",
    throw new IllegalStateException("the run sets no rdma.suites.exclusions"))

  lazy val entries: Seq[Entry] = {
    val lines = Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8).asScala.toSeq
    lines.zipWithIndex.filterNot { case (l, _) => l.trim.isEmpty || l.trim.startsWith("#") }
      .map { case (l, i) =>
        val f = l.split("\\|").map(_.trim)
        require(f.length == 5 && f.forall(_.nonEmpty),
          s"$path line ${i + 1}: want 'suite | test | side | lines | reason', got: $l")
        require(Set("ours", "both", "copies").contains(f(2)), s"$path line ${i + 1}: side=${f(2)}")
        Entry(f(0), f(1), f(2), f(3), f(4))
      }
  }

  /** This Spark's line, e.g. 4.1. */
  def sparkLine: String = SPARK_VERSION.split('.').take(2).mkString(".")

  def excluded(suite: String, side: String): Seq[String] =
    entries.filter(e => e.suite == suite && applies(e.side, side) &&
      (e.lines == "all" || e.lines.split(",").map(_.trim).contains(sparkLine))).map(_.test)

  private def applies(entrySide: String, runSide: String): Boolean = entrySide match {
    case "both" => true
    case "copies" => runSide == "ours" && servedFilesCopied
    case s => s == runSide
  }

  /**
   * Whether this run's transport pins served files as private copies: asked of the transport
   * itself, started as an executor starts it (the run's `spark.shuffle.rdma.transport`, on
   * `SPARK_LOCAL_IP`), since the kernel decides and the transport probes it. Only verbs can copy:
   * on any other transport nothing is started.
   */
  lazy val servedFilesCopied: Boolean =
    sys.props.get("spark.shuffle.rdma.transport").contains("verbs") && {
      val conf = RdmaConf.of(SparkConfig.SCHEMA,
        Map("spark.shuffle.rdma.transport" -> "verbs").asJava)
      val secrets = ApplicationSecrets.of("suites-file-mapping",
        "suites-file-mapping-secret-0123".getBytes(StandardCharsets.US_ASCII))
      val host = sys.env.getOrElse("SPARK_LOCAL_IP", "127.0.0.1")
      val t = TransportSelector.standard().start(conf, secrets, host, new TransportMetrics())
      try t.registrar().fileMapper().copies() finally t.close()
    }
}
