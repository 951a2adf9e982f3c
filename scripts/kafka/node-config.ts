/**
 * The files one KRaft node (broker and controller in one process) needs: `server.properties` and
 * the logging configuration of its Kafka line (reload4j for 3.x, log4j 2 for 4.x). Pure functions;
 * scripts/kafka/cluster.ts writes and runs them.
 */

/** The protocol of the optional secured client listener. */
export type SecureProtocol = 'SASL_SSL' | 'SSL' | 'SASL_PLAINTEXT';

/** A SCRAM user added at format time (`StorageTool format --add-scram`, KIP-900). */
export interface ScramUser {
  mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  name: string;
  password: string;
}

/** Ports of one node. */
export interface NodePorts {
  /** PLAINTEXT client and inter-broker listener. */
  plain: number;
  controller: number;
  /** The secured client listener, when there is one. */
  secure?: number;
}

/** What every node of a cluster shares. */
export interface ClusterShape {
  /** Ports by node index (node.id = index + 1). */
  ports: NodePorts[];
  secure?: { protocol: SecureProtocol; keystorePemFile?: string };
  /** StandardAuthorizer with `User:ANONYMOUS` (the PLAINTEXT and controller listeners) as super user. */
  authorizer?: boolean;
  /** Extra or overriding broker properties. */
  properties?: Record<string, string | number | boolean>;
}

/** `server.properties` of node `index` (0-based). */
export function serverProperties(shape: ClusterShape, index: number, logDir: string): string {
  const n = shape.ports.length;
  const p = shape.ports[index]!;
  const voters = shape.ports.map((q, i) => `${i + 1}@127.0.0.1:${q.controller}`).join(',');
  const listeners = [`PLAINTEXT://127.0.0.1:${p.plain}`, `CONTROLLER://127.0.0.1:${p.controller}`];
  const advertised = [`PLAINTEXT://127.0.0.1:${p.plain}`];
  const protocolMap = ['PLAINTEXT:PLAINTEXT', 'CONTROLLER:PLAINTEXT'];
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': index + 1,
    'controller.quorum.voters': voters,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': logDir,
    // Replication as a production cluster of this size would have it.
    'default.replication.factor': n,
    'min.insync.replicas': n >= 3 ? 2 : 1,
    'offsets.topic.replication.factor': n,
    'transaction.state.log.replication.factor': n,
    'transaction.state.log.min.isr': n >= 3 ? 2 : 1,
    // Small internal topics and no join delay: tests create many short-lived groups.
    'offsets.topic.num.partitions': 10,
    'transaction.state.log.num.partitions': 4,
    'group.initial.rebalance.delay.ms': 0,
    'num.partitions': 4,
    // Two cores shared by several JVMs.
    'num.network.threads': 2,
    'num.io.threads': 4,
    'num.recovery.threads.per.data.dir': 1,
    'log.cleaner.threads': 1,
  };
  if (shape.secure) {
    listeners.push(`SECURE://127.0.0.1:${p.secure}`);
    advertised.push(`SECURE://127.0.0.1:${p.secure}`);
    protocolMap.push(`SECURE:${shape.secure.protocol}`);
    if (shape.secure.protocol !== 'SSL') {
      props['listener.name.secure.sasl.enabled.mechanisms'] = 'SCRAM-SHA-256,SCRAM-SHA-512';
      props['listener.name.secure.scram-sha-256.sasl.jaas.config'] = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
      props['listener.name.secure.scram-sha-512.sasl.jaas.config'] = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
    }
    if (shape.secure.protocol !== 'SASL_PLAINTEXT') {
      if (!shape.secure.keystorePemFile) throw new Error(`${shape.secure.protocol} listener needs keystorePemFile`);
      props['listener.name.secure.ssl.keystore.type'] = 'PEM';
      props['listener.name.secure.ssl.keystore.location'] = shape.secure.keystorePemFile;
      props['listener.name.secure.ssl.client.auth'] = 'none';
    }
  }
  if (shape.authorizer) {
    props['authorizer.class.name'] = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
    props['super.users'] = 'User:ANONYMOUS';
    props['allow.everyone.if.no.acl.found'] = false;
  }
  props['listeners'] = listeners.join(',');
  props['advertised.listeners'] = advertised.join(',');
  props['listener.security.protocol.map'] = protocolMap.join(',');
  Object.assign(props, shape.properties);
  return Object.entries(props).map(([k, v]) => `${k}=${String(v)}`).join('\n') + '\n';
}

/** Loggers kept at INFO (readiness line, elections, authentication failures); the rest at WARN. */
const INFO_LOGGERS = ['kafka.server.KafkaRaftServer', 'org.apache.kafka.common.network.Selector', 'org.apache.kafka.raft.QuorumState'];

/** The logging file of a Kafka line, and the JVM property that points at it. */
export function loggingConfig(version: string, file: string): { text: string; jvmProperty: string } {
  if (version.startsWith('3.')) {
    const text = [
      'log4j.rootLogger=WARN, stdout',
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
      ...INFO_LOGGERS.map((l) => `log4j.logger.${l}=INFO`),
    ].join('\n');
    return { text: text + '\n', jvmProperty: `-Dlog4j.configuration=file:${file}` };
  }
  const text = [
    'appender.out.type=Console',
    'appender.out.name=STDOUT',
    'appender.out.layout.type=PatternLayout',
    'appender.out.layout.pattern=[%d] %p %m (%c)%n',
    'rootLogger.level=WARN',
    'rootLogger.appenderRef.out.ref=STDOUT',
    ...INFO_LOGGERS.flatMap((l, i) => [`logger.l${i}.name=${l}`, `logger.l${i}.level=INFO`]),
  ].join('\n');
  return { text: text + '\n', jvmProperty: `-Dlog4j2.configurationFile=${file}` };
}

/** `StorageTool format` arguments for one node. */
export function formatArgs(clusterId: string, propertiesFile: string, users: readonly ScramUser[] = []): string[] {
  const args = ['kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propertiesFile, '--ignore-formatted'];
  for (const u of users) args.push('--add-scram', `${u.mechanism}=[name=${u.name},password=${u.password}]`);
  return args;
}
