/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.reduce.RdmaShuffleConsumer;
import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.junit.jupiter.api.Test;

/** conf/yarn-site.xml and conf/mapred-site.xml, as Hadoop reads them, install this module. */
class OperatorTemplatesTest {
  private static final Path ROOT = Paths.get("").toAbsolutePath().getParent();

  private static Configuration load(String template) {
    Configuration c = new Configuration(false);
    c.addResource(new org.apache.hadoop.fs.Path(ROOT.resolve(template).toString()));
    return c;
  }

  @Test
  void yarnSiteRegistersOurServiceUnderTheStockShufflesName() {
    Configuration yarn = load("conf/yarn-site.xml");
    assertEquals(
        ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID, yarn.get("yarn.nodemanager.aux-services"));
    Class<?> service = yarn.getClass("yarn.nodemanager.aux-services.mapreduce_shuffle.class", null);
    assertEquals(RdmaShuffleHandler.class, service);
    assertTrue(AuxiliaryService.class.isAssignableFrom(service));
    assertTrue(ShuffleHandler.class.isAssignableFrom(service), "keeps the stock HTTP shuffle");
    // the commented-out settings are defaults: nothing set, everything valid
    RdmaConf conf = HadoopConf.load(yarn);
    assertEquals(
        RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES.defaultValue(),
        conf.get(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES));
  }

  @Test
  void mapredSiteSetsOurConsumer() {
    Configuration mapred = load("conf/mapred-site.xml");
    Class<?> consumer = mapred.getClass(MRConfig.SHUFFLE_CONSUMER_PLUGIN, null);
    assertEquals(RdmaShuffleConsumer.class, consumer);
    assertTrue(ShuffleConsumerPlugin.class.isAssignableFrom(consumer));
    assertTrue(HadoopConf.load(mapred).explicitlySet().isEmpty());
  }
}
