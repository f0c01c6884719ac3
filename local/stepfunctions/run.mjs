// Runs one execution of a Step Functions state machine (JSONPath ASL, e.g.
// infra/statemachine/decision.asl.json) locally with aws-local-stepfunctions,
// installed by install.sh into .tools/sfn.
//
//   node local/stepfunctions/run.mjs --lambda-endpoint=http://127.0.0.1:PORT \
//     --name=EXECUTION_NAME --input='{"action": "approve", ...}' [--approval=JSON]
//
// (a value starting with '-' must be given inline, after '='.)
//
// The interpreter would call real AWS for every Task, so every Task state is
// overridden, by its Resource:
//   - arn:aws:states:::lambda:invoke: POST the Payload to the Lambda invoke
//     API at --lambda-endpoint (the Go side serves the decision handler
//     there, as the Lambda runtime emulator does) and answer as the
//     integration does, {"Payload": ..., "StatusCode": 200, ...}; a function
//     error fails the task with the function's errorType as the error name,
//     so Catch/Retry ErrorEquals match as in AWS.
//   - arn:aws:states:::lambda:invoke.waitForTaskToken: invokes the function
//     as above (its Payload carries the task token), then waits for the
//     second operator's answer: with --approval-endpoint URL it POSTs
//     {"task_token", "execution"} there and waits for the answer ({"output":
//     …} or {"error", "cause"}), which the local Step Functions API
//     (local/stageapi.go) gives when SendTaskSuccess or SendTaskFailure
//     names the token; otherwise --approval's JSON is SendTaskSuccess's
//     output and, without it, the answer is SendTaskFailure
//     (SecondApprovalRefused).
//   - arn:aws:states:::sns:publish: the notification; written to stderr.
// A Task with any other Resource stops the run rather than reach AWS.
//
// Prints one JSON object: {"status": "SUCCEEDED", "output": ..., "states": [...]}
// or {"status": "FAILED", "error": ..., "cause": ..., "states": [...]}; exits
// 0 either way, and 2 when the run itself could not be made.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');

function die(msg) {
  process.stderr.write(`run.mjs: ${msg}\n`);
  process.exit(2);
}

// A value that starts with '-' must be given inline (--name=-x), as
// local/workflow.go gives every value; a mistake is a usage failure (exit 2),
// not a stack trace.
let opt;
try {
  ({ values: opt } = parseArgs({
    options: {
      definition: { type: 'string', default: join(root, 'infra', 'statemachine', 'decision.asl.json') },
      'lambda-endpoint': { type: 'string' },
      name: { type: 'string' },
      input: { type: 'string', default: '{}' },
      approval: { type: 'string' },
      'approval-endpoint': { type: 'string' },
      region: { type: 'string', default: 'us-east-1' },
      account: { type: 'string', default: '000000000000' },
      tools: { type: 'string', default: process.env.SFN_DIR || join(root, '.tools', 'sfn') },
    },
  }));
} catch (err) {
  die(err.message);
}
if (!opt['lambda-endpoint'] || !opt.name) die('--lambda-endpoint and --name are required');
let approval;
if (opt.approval !== undefined) {
  try {
    approval = JSON.parse(opt.approval);
  } catch (err) {
    die(`--approval must be JSON: ${err.message}`);
  }
}

// aws-local-stepfunctions 3.0.0 declares node >= 22 for Promise.withResolvers
// (its Task timeout) alone; Node 20 gets it here, before the library loads.
Promise.withResolvers ??= function withResolvers() {
  let resolve, reject;
  const promise = new this((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};

let StateMachine;
try {
  ({ StateMachine } = createRequire(join(opt.tools, 'package.json'))('aws-local-stepfunctions'));
} catch (err) {
  die(`aws-local-stepfunctions is not installed in ${opt.tools} (run local/stepfunctions/install.sh): ${err.message}`);
}

// The deployment substitutes these (CDK/SAM DefinitionSubstitutions).
const arn = (service, resource) => `arn:aws:${service}:${opt.region}:${opt.account}:${resource}`;
const substitutions = {
  DecisionFunctionArn: arn('lambda', 'function:decision'),
  ApprovalTopicArn: arn('sns', 'decision-approvals'),
};
const text = readFileSync(opt.definition, 'utf8').replace(/\$\{(\w+)\}/g, (m, name) => {
  if (!(name in substitutions)) die(`${opt.definition}: no value for placeholder ${m}`);
  return substitutions[name];
});
const definition = JSON.parse(text);

// An error a Task fails with: the interpreter matches Catch and Retry on
// its name; its message becomes the Cause.
function taskError(name, cause) {
  const err = new Error(cause);
  err.name = name;
  return err;
}

// The lambda:invoke integration over the Lambda invoke API.
async function invokeLambda({ FunctionName, Payload }) {
  const fn = String(FunctionName).split(':function:').pop().split(':')[0];
  const url = `${opt['lambda-endpoint']}/2015-03-31/functions/${encodeURIComponent(fn)}/invocations`;
  let res;
  try {
    res = await fetch(url, { method: 'POST', body: JSON.stringify(Payload ?? {}) });
  } catch (err) {
    throw taskError('Lambda.SdkClientException', `${url}: ${err.cause?.message ?? err.message}`);
  }
  const body = await res.text();
  if (res.status === 404) throw taskError('Lambda.ResourceNotFoundException', `Function not found: ${FunctionName}`);
  if (res.status !== 200) throw taskError('Lambda.ServiceException', `${res.status}: ${body}`);
  if (res.headers.get('x-amz-function-error')) {
    // As in AWS: the error is the function's errorType, the Cause its whole
    // error document, as a string.
    let type = 'Lambda.Unknown';
    try { type = JSON.parse(body).errorType || type; } catch { /* keep Unknown */ }
    throw taskError(type, body);
  }
  return { ExecutedVersion: '$LATEST', Payload: JSON.parse(body), StatusCode: 200 };
}

// The token the execution's context hands the one waitForTaskToken task.
const taskToken = `local-token-${opt.name}`;

// The lambda:invoke.waitForTaskToken integration: the function records the
// wait (its Payload carries the token), then the second operator answers.
async function awaitApproval(params) {
  if (params?.Payload?.task_token !== taskToken) {
    // Without the token no operator could answer: AWS would wait until the timeout.
    throw taskError('States.Timeout', 'the approval task carries no task token, so nobody can answer it');
  }
  await invokeLambda(params);
  if (opt['approval-endpoint']) {
    let answer;
    try {
      const res = await fetch(opt['approval-endpoint'], {
        method: 'POST',
        body: JSON.stringify({ task_token: taskToken, execution: arn('states', `execution:decision:${opt.name}`) }),
      });
      answer = await res.json();
    } catch (err) {
      throw taskError('States.TaskFailed', `approval endpoint: ${err.cause?.message ?? err.message}`);
    }
    if (answer.error) throw taskError(answer.error, answer.cause ?? '');
    return answer.output;
  }
  if (approval === undefined) throw taskError('SecondApprovalRefused', 'No second operator approved the action.');
  return approval;
}

// The sns:publish integration: the notification goes to stderr.
async function publish({ Subject, Message }) {
  process.stderr.write(`run.mjs: notification ${JSON.stringify(Subject)}: ${JSON.stringify(Message)}\n`);
  return { MessageId: `local-${opt.name}` };
}

const handlers = {
  'arn:aws:states:::lambda:invoke': invokeLambda,
  'arn:aws:states:::lambda:invoke.waitForTaskToken': awaitApproval,
  'arn:aws:states:::sns:publish': publish,
};
const overrides = {};
for (const [name, state] of Object.entries(definition.States)) {
  if (state.Type !== 'Task') continue;
  const handler = handlers[state.Resource];
  if (!handler) die(`state ${name}: no local stand-in for Resource ${state.Resource}`);
  overrides[name] = handler;
}

const machine = new StateMachine(definition);
const execution = machine.run(JSON.parse(opt.input), {
  overrides: { taskResourceLocalHandlers: overrides },
  context: {
    Execution: { Id: arn('states', `execution:decision:${opt.name}`), Name: opt.name },
    StateMachine: { Id: arn('states', 'stateMachine:decision'), Name: 'decision' },
    Task: { Token: taskToken },
  },
});

// The states entered, in order, from the execution's event log.
const states = [];
const logged = (async () => {
  for await (const ev of execution.eventLogs) {
    if (ev.type === 'StateEntered') states.push(ev.state.name);
  }
})();

let summary;
try {
  summary = { status: 'SUCCEEDED', output: await execution.result };
} catch (err) {
  // ExecutionError carries the error the execution failed with.
  const failure = err.cause ?? err;
  summary = { status: 'FAILED', error: failure.name, cause: failure.message };
}
await logged;
summary.states = states;
process.stdout.write(JSON.stringify(summary) + '\n');
