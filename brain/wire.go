package brain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// The chat-completions wire format, reduced to the fields herd sends and
// reads. What is sent is fixed by the committed cassettes: a cassette
// files an answer under the hash of the request's JSON, so a field added,
// dropped or sent differently here (an empty content left in, a seed of 0
// left out) makes every recorded request a new one. TestRequestWire holds
// the shape to the bytes.

// chatRequest is one POST {base}/chat/completions. Streaming is never
// asked for (a missing "stream" is false).
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []chatTool    `json:"tools,omitempty"`
	// Seed is always sent, 0 included: it tells two agents' identical
	// conversations apart.
	Seed        int64    `json:"seed"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
}

// Message roles.
const (
	roleSystem    = "system"
	roleUser      = "user"
	roleAssistant = "assistant"
	roleTool      = "tool"
)

// chatMessage is one message of the conversation as it is sent. Content
// is a pointer because the roles differ: a system, user or tool message
// always carries its content (even an empty one), an assistant message
// only when it said something besides its tool calls.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content,omitempty"`
	Refusal    string         `json:"refusal,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

func textMessage(role, content string) chatMessage {
	return chatMessage{Role: role, Content: &content}
}

func toolMessage(content, callID string) chatMessage {
	return chatMessage{Role: roleTool, Content: &content, ToolCallID: callID}
}

// chatToolCall is a function call of an assistant message.
type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatTool is one tool offered to the model.
type chatTool struct {
	Type     string           `json:"type"` // always "function"
	Function chatToolFunction `json:"function"`
}

type chatToolFunction struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the tool's input schema; an empty schema is still
	// sent ({}), only a missing one is left out.
	Parameters map[string]any `json:"parameters,omitzero"`
}

// chatCompletion is the endpoint's answer. Fields herd does not read are
// not declared, and unknown ones are ignored: endpoints add their own
// (Ollama, vLLM and gateways all do).
type chatCompletion struct {
	Choices []chatChoice `json:"choices"`
	Usage   struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	// Error is set by gateways that answer a failure with status 200.
	Error json.RawMessage `json:"error"`
}

type chatChoice struct {
	Message answerMessage `json:"message"`
}

// answerMessage is the assistant's message as answered. A null content
// (the usual companion of tool calls) reads as "".
type answerMessage struct {
	Content   nullableString   `json:"content"`
	Refusal   nullableString   `json:"refusal"`
	ToolCalls []answerToolCall `json:"tool_calls"`
}

type answerToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      nullableString `json:"name"`
		Arguments argumentsText  `json:"arguments"`
	} `json:"function"`
}

// param is the message as it goes back to the endpoint in the next
// request: content only when there is some, every call as a function
// call (a call with no type is one; the agent refuses any other type,
// and the model is told so in the tool's answer).
func (m *answerMessage) param() chatMessage {
	p := chatMessage{Role: roleAssistant, Refusal: string(m.Refusal)}
	if m.Content != "" {
		s := string(m.Content)
		p.Content = &s
	}
	for _, c := range m.ToolCalls {
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		p.ToolCalls = append(p.ToolCalls, chatToolCall{ID: c.ID, Type: typ,
			Function: chatFunction{Name: string(c.Function.Name), Arguments: string(c.Function.Arguments)}})
	}
	return p
}

// nullableString is a JSON string that may be null.
type nullableString string

func (s *nullableString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = ""
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return wrongKind(b)
	}
	*s = nullableString(v)
	return nil
}

// argumentsText is a tool call's arguments: the wire format says a JSON
// string holding the arguments' JSON, and some servers send the object
// itself; both read as the object's text.
type argumentsText string

func (a *argumentsText) UnmarshalJSON(b []byte) error {
	switch t := bytes.TrimSpace(b); {
	case string(t) == "null":
		*a = ""
	case len(t) > 0 && t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return err
		}
		*a = argumentsText(s)
	case len(t) > 0 && t[0] == '{':
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err != nil {
			return err
		}
		*a = argumentsText(buf.String())
	default:
		return wrongKind(b)
	}
	return nil
}

// decodeCompletion reads an answer, saying where it is not one.
func decodeCompletion(body []byte) (*chatCompletion, error) {
	var r chatCompletion
	err := json.Unmarshal(body, &r)
	if err == nil {
		return &r, nil
	}
	where := ""
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		where = fmt.Sprintf("byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		where = fmt.Sprintf("%s: want %s, got %s", te.Field, te.Type, te.Value)
		if te.Offset > 0 { // a field's own decoder leaves it unset
			where = fmt.Sprintf("%s (byte %d): want %s, got %s", te.Field, te.Offset, te.Type, te.Value)
		}
	default:
		// A field's own decoder (content, arguments) failed: encoding/json
		// names the field in its message.
		where = strings.TrimPrefix(err.Error(), "json: ")
	}
	return nil, fmt.Errorf("the model's answer (%d bytes) is not a chat completion: %s", len(body), where)
}

// errorMessage is the message of an error answer: OpenAI's
// {"error":{"message":…}}, or the {"error":"…"} some servers send; ""
// when the body says neither.
func errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return strings.TrimSpace(s)
	}
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &m) == nil {
		return strings.TrimSpace(m.Message)
	}
	return ""
}

// wrongKind is the error of a field's decoder given JSON of the wrong
// kind: as a type error, encoding/json adds the field's path to it.
func wrongKind(b []byte) error {
	kind := "number"
	switch t := bytes.TrimSpace(b); {
	case len(t) == 0:
		kind = "nothing"
	case t[0] == '"':
		kind = "string"
	case t[0] == '{':
		kind = "object"
	case t[0] == '[':
		kind = "array"
	case t[0] == 't' || t[0] == 'f':
		kind = "bool"
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[string]()}
}
