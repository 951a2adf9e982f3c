// Command kafka-fixtures writes Kafka message values exactly as the OpenTelemetry Collector's kafka
// exporter (contrib exporter/kafkaexporter v0.148.0) marshals them: the exporter hands each batch to
// ptrace.ProtoMarshaler / ptrace.JSONMarshaler (plog.* for logs) and sends the bytes as one message
// value; with partition_traces_by_id it first splits the batch per trace (one message per trace, key =
// the trace id in hex). These are the same pdata marshalers, at the release the test Collector is built
// from (scripts/collector/builder-config.yaml), fed a small RAG trace: a retriever span with two
// documents, an LLM span with GenAI attributes, and a GenAI content log event.
//
//	cd scripts/collector/kafka-fixtures && GOFLAGS=-mod=mod go run . ../../../tests/fixtures/otlp-kafka
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var (
	traceID  = pcommon.TraceID([16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36})
	traceID2 = pcommon.TraceID([16]byte{0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c})
	start    = time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
)

func spanID(b byte) pcommon.SpanID { return pcommon.SpanID([8]byte{0, 0, 0, 0, 0, 0, 0x10, b}) }

// ragTrace appends one RAG trace (root, retriever, LLM) of service "rag-api" to td.
func ragTrace(td ptrace.Traces, id pcommon.TraceID, question, answer string) {
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "rag-api")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("openinference.instrumentation.langchain")

	root := ss.Spans().AppendEmpty()
	root.SetTraceID(id)
	root.SetSpanID(spanID(1))
	root.SetName("RetrievalQA")
	root.SetKind(ptrace.SpanKindServer)
	root.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
	root.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(900 * time.Millisecond)))
	root.Attributes().PutStr("openinference.span.kind", "CHAIN")
	root.Attributes().PutStr("input.value", question)
	root.Attributes().PutStr("output.value", answer)

	ret := ss.Spans().AppendEmpty()
	ret.SetTraceID(id)
	ret.SetSpanID(spanID(2))
	ret.SetParentSpanID(spanID(1))
	ret.SetName("VectorStoreRetriever")
	ret.SetStartTimestamp(pcommon.NewTimestampFromTime(start.Add(10 * time.Millisecond)))
	ret.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(60 * time.Millisecond)))
	ret.Attributes().PutStr("openinference.span.kind", "RETRIEVER")
	ret.Attributes().PutStr("input.value", question)
	ret.Attributes().PutStr("retrieval.documents.0.document.id", "kb-12")
	ret.Attributes().PutStr("retrieval.documents.0.document.content", "The Eiffel Tower is 330 metres tall.")
	ret.Attributes().PutDouble("retrieval.documents.0.document.score", 0.91)
	ret.Attributes().PutStr("retrieval.documents.1.document.id", "kb-40")
	ret.Attributes().PutStr("retrieval.documents.1.document.content", "It was completed in 1889 for the World's Fair.")
	ret.Attributes().PutDouble("retrieval.documents.1.document.score", 0.55)

	llm := ss.Spans().AppendEmpty()
	llm.SetTraceID(id)
	llm.SetSpanID(spanID(3))
	llm.SetParentSpanID(spanID(1))
	llm.SetName("ChatOpenAI")
	llm.SetKind(ptrace.SpanKindClient)
	llm.SetStartTimestamp(pcommon.NewTimestampFromTime(start.Add(70 * time.Millisecond)))
	llm.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(880 * time.Millisecond)))
	llm.Attributes().PutStr("openinference.span.kind", "LLM")
	llm.Attributes().PutStr("llm.model_name", "gpt-4o-mini")
	llm.Attributes().PutStr("llm.input_messages.0.message.role", "user")
	llm.Attributes().PutStr("llm.input_messages.0.message.content", question)
	llm.Attributes().PutStr("llm.output_messages.0.message.role", "assistant")
	llm.Attributes().PutStr("llm.output_messages.0.message.content", answer)
	llm.Attributes().PutInt("llm.token_count.prompt", 120)
	llm.Attributes().PutInt("llm.token_count.completion", 14)
	ev := llm.Events().AppendEmpty()
	ev.SetName("First Token Stream Event")
	ev.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(250 * time.Millisecond)))
}

func traces() ptrace.Traces {
	td := ptrace.NewTraces()
	ragTrace(td, traceID, "How tall is the Eiffel Tower?", "The Eiffel Tower is 330 metres tall.")
	ragTrace(td, traceID2, "When was the Eiffel Tower completed?", "It was completed in 1889.")
	return td
}

func logs() plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "rag-api")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("opentelemetry.instrumentation.genai.openai")
	lr := sl.LogRecords().AppendEmpty()
	lr.SetTraceID(traceID)
	lr.SetSpanID(spanID(3))
	lr.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(880 * time.Millisecond)))
	lr.SetEventName("gen_ai.choice")
	body := lr.Body().SetEmptyMap()
	body.PutInt("index", 0)
	body.PutStr("finish_reason", "stop")
	msg := body.PutEmptyMap("message")
	msg.PutStr("role", "assistant")
	msg.PutStr("content", "The Eiffel Tower is 330 metres tall.")
	return ld
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		panic(err)
	}
	fmt.Printf("%s\t%d bytes\n", name, len(b))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: kafka-fixtures OUTPUT_DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	td := traces()
	// One message per exported batch (the default): both traces in one value, no key.
	write(dir, "traces.otlp_proto.bin", must((&ptrace.ProtoMarshaler{}).MarshalTraces(td)))
	write(dir, "traces.otlp_json.json", must((&ptrace.JSONMarshaler{}).MarshalTraces(td)))
	// partition_traces_by_id: the exporter splits per trace and keys each message by the hex trace id.
	for i, id := range []pcommon.TraceID{traceID, traceID2} {
		one := ptrace.NewTraces()
		td.ResourceSpans().At(i).CopyTo(one.ResourceSpans().AppendEmpty())
		write(dir, fmt.Sprintf("trace-%s.otlp_proto.bin", hex.EncodeToString(id[:])), must((&ptrace.ProtoMarshaler{}).MarshalTraces(one)))
	}
	ld := logs()
	write(dir, "logs.otlp_proto.bin", must((&plog.ProtoMarshaler{}).MarshalLogs(ld)))
	write(dir, "logs.otlp_json.json", must((&plog.JSONMarshaler{}).MarshalLogs(ld)))
}
