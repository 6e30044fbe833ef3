/**
 * The JSON Schema each built-in tool offers the model, written from its `inputSchema` by
 * `npm run build:tool-parameters` (scripts/tool-parameters.mjs): a new isolate does not make them at
 * its first turn. Do not edit: test/unit/built-in-parameters.test.ts holds it to the schemas.
 */
export const BUILT_IN_PARAMETERS: Record<string, Record<string, unknown>> = {
  "calculator": {
    "type": "object",
    "properties": {
      "expression": {
        "type": "string",
        "minLength": 1,
        "description": "Arithmetic with + - * / % ^, parentheses and decimals, e.g. \"(2 + 3) * 4.5\"."
      }
    },
    "required": [
      "expression"
    ],
    "additionalProperties": false
  },
  "current_time": {
    "type": "object",
    "properties": {
      "timezone": {
        "description": "An IANA time zone such as \"Asia/Tokyo\"; UTC when left out.",
        "type": "string",
        "minLength": 1,
        "maxLength": 64
      }
    },
    "additionalProperties": false
  },
  "memory_save": {
    "type": "object",
    "properties": {
      "text": {
        "type": "string",
        "minLength": 1,
        "maxLength": 2000,
        "description": "The note to keep."
      }
    },
    "required": [
      "text"
    ],
    "additionalProperties": false
  },
  "memory_list": {
    "type": "object",
    "properties": {},
    "additionalProperties": false
  },
  "count_to": {
    "type": "object",
    "properties": {
      "to": {
        "type": "integer",
        "minimum": 1,
        "maximum": 20,
        "description": "How far to count."
      },
      "delayMs": {
        "default": 100,
        "description": "The pause between two steps, in milliseconds.",
        "type": "integer",
        "minimum": 0,
        "maximum": 2000
      }
    },
    "required": [
      "to"
    ],
    "additionalProperties": false
  },
  "render_chart": {
    "type": "object",
    "properties": {
      "values": {
        "minItems": 1,
        "maxItems": 24,
        "type": "array",
        "items": {
          "type": "number"
        },
        "description": "The bars, left to right."
      },
      "title": {
        "description": "What the chart shows.",
        "type": "string",
        "maxLength": 80
      }
    },
    "required": [
      "values"
    ],
    "additionalProperties": false
  },
  "agent_spawn": {
    "type": "object",
    "properties": {
      "agentId": {
        "type": "string",
        "pattern": "^[A-Za-z0-9_-]{1,40}$",
        "description": "Which sub-agent: a short name for its role, such as \"researcher\"."
      },
      "task": {
        "type": "string",
        "minLength": 1,
        "maxLength": 4000,
        "description": "What the sub-agent is to do, in full: it sees nothing else of this conversation."
      },
      "expose_to_user": {
        "default": false,
        "description": "Whether the user gets the sub-agent's session to open and continue.",
        "type": "boolean"
      }
    },
    "required": [
      "agentId",
      "task"
    ],
    "additionalProperties": false
  }
};
