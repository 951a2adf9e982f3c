/**
 * The OTLP messages ragwatch decodes and answers with, as a protobufjs reflection descriptor
 * (`Root.fromJSON`). Names, field numbers and wire types are those of opentelemetry-proto v1
 * (`opentelemetry/proto/{common,resource,trace,logs,collector/*}/v1/*.proto`, stable since
 * v1.0) and of `google/rpc/status.proto`. Only the fields ragwatch reads are declared: the
 * decoder skips the others (links, status, dropped counts, …) by the usual protobuf rules for
 * unknown fields, which costs nothing and keeps nothing. Field names are lowerCamelCase, the
 * same names the OTLP/JSON decoder reads, so one walker serves both encodings.
 *
 * The field numbers are checked against an independent encoder (the OpenTelemetry JS SDK's
 * `@opentelemetry/otlp-transformer` serializers) in tests/capture/otlp/protobuf.test.ts.
 * @module
 */
import type { INamespace } from 'protobufjs';

const repeated = 'repeated' as const;

/** KeyValue list field with the given number. */
const attributes = (id: number) => ({ rule: repeated, type: 'opentelemetry.proto.common.v1.KeyValue', id });

/** Reflection descriptor of the OTLP trace/logs export services and google.rpc.Status. */
export const OTLP_DESCRIPTOR: INamespace = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
                      fields: {
                        stringValue: { type: 'string', id: 1 },
                        boolValue: { type: 'bool', id: 2 },
                        intValue: { type: 'int64', id: 3 },
                        doubleValue: { type: 'double', id: 4 },
                        arrayValue: { type: 'ArrayValue', id: 5 },
                        kvlistValue: { type: 'KeyValueList', id: 6 },
                        bytesValue: { type: 'bytes', id: 7 },
                      },
                    },
                    ArrayValue: { fields: { values: { rule: repeated, type: 'AnyValue', id: 1 } } },
                    KeyValueList: { fields: { values: { rule: repeated, type: 'KeyValue', id: 1 } } },
                    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
                    InstrumentationScope: {
                      fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 }, attributes: attributes(3) },
                    },
                  },
                },
              },
            },
            resource: {
              nested: { v1: { nested: { Resource: { fields: { attributes: attributes(1) } } } } },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    ResourceSpans: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeSpans: { rule: repeated, type: 'ScopeSpans', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    ScopeSpans: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        spans: { rule: repeated, type: 'Span', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    Span: {
                      fields: {
                        traceId: { type: 'bytes', id: 1 },
                        spanId: { type: 'bytes', id: 2 },
                        traceState: { type: 'string', id: 3 },
                        parentSpanId: { type: 'bytes', id: 4 },
                        name: { type: 'string', id: 5 },
                        // SpanKind enum: varint on the wire, decoded as its number.
                        kind: { type: 'int32', id: 6 },
                        startTimeUnixNano: { type: 'fixed64', id: 7 },
                        endTimeUnixNano: { type: 'fixed64', id: 8 },
                        attributes: attributes(9),
                        events: { rule: repeated, type: 'Event', id: 11 },
                        droppedEventsCount: { type: 'uint32', id: 12 },
                        flags: { type: 'fixed32', id: 16 },
                      },
                    },
                    Event: {
                      fields: { timeUnixNano: { type: 'fixed64', id: 1 }, name: { type: 'string', id: 2 }, attributes: attributes(3) },
                    },
                  },
                },
              },
            },
            logs: {
              nested: {
                v1: {
                  nested: {
                    ResourceLogs: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeLogs: { rule: repeated, type: 'ScopeLogs', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    ScopeLogs: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        logRecords: { rule: repeated, type: 'LogRecord', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    LogRecord: {
                      fields: {
                        timeUnixNano: { type: 'fixed64', id: 1 },
                        // SeverityNumber enum, decoded as its number.
                        severityNumber: { type: 'int32', id: 2 },
                        severityText: { type: 'string', id: 3 },
                        body: { type: 'opentelemetry.proto.common.v1.AnyValue', id: 5 },
                        attributes: attributes(6),
                        flags: { type: 'fixed32', id: 8 },
                        traceId: { type: 'bytes', id: 9 },
                        spanId: { type: 'bytes', id: 10 },
                        observedTimeUnixNano: { type: 'fixed64', id: 11 },
                        eventName: { type: 'string', id: 12 },
                      },
                    },
                  },
                },
              },
            },
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: { resourceSpans: { rule: repeated, type: 'opentelemetry.proto.trace.v1.ResourceSpans', id: 1 } },
                        },
                        ExportTraceServiceResponse: { fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } } },
                        ExportTracePartialSuccess: {
                          fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
                        },
                      },
                    },
                  },
                },
                logs: {
                  nested: {
                    v1: {
                      nested: {
                        ExportLogsServiceRequest: {
                          fields: { resourceLogs: { rule: repeated, type: 'opentelemetry.proto.logs.v1.ResourceLogs', id: 1 } },
                        },
                        ExportLogsServiceResponse: { fields: { partialSuccess: { type: 'ExportLogsPartialSuccess', id: 1 } } },
                        ExportLogsPartialSuccess: {
                          fields: { rejectedLogRecords: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    google: {
      nested: {
        rpc: {
          nested: {
            // `details` carries a RetryInfo when OTLP/gRPC load shedding tells the exporter when to retry.
            Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: repeated, type: 'google.protobuf.Any', id: 3 } } },
            // google/rpc/error_details.proto
            RetryInfo: { fields: { retryDelay: { type: 'google.protobuf.Duration', id: 1 } } },
          },
        },
        protobuf: {
          nested: {
            Any: { fields: { typeUrl: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
            Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
          },
        },
      },
    },
  },
};
