"""moto's server for make rehearse, with the fixes its CloudFormation needs.

Run with the interpreter of the virtual environment local/moto/install.sh
makes (moto pinned there), with moto_server's arguments:

    ~/.cache/evs/moto-<version>/bin/python local/moto/rehearse_server.py -H 127.0.0.1 -p PORT

moto (5.2) implements the service APIs the stacks use but not every
CloudFormation resource type: a type it has no model for it skips with a
warning, and the stack still reports CREATE_COMPLETE. This launcher, before
the server starts:

- registers a minimal model for each type the stacks use that moto lacks,
  each creating the real resource through moto's own backend, so that the
  service APIs (GetStage, DescribeAlarms, DescribeSecret, ...) see it;
- fixes moto's AWS::KMS::Key model, which fails on a key with Tags (it
  hands CloudFormation's Key/Value tags to a tagger that wants
  TagKey/TagValue) and keeps the key policy as an object;
- completes moto's models where they drop a property the rehearsal checks:
  a function's Architectures, a table's TimeToLiveSpecification, a
  bucket's VersioningConfiguration, Object Lock and ReplicationConfiguration; gives an API's
  deployment its id as physical id (its stage referenced the object);
- creates a resource's DependsOn before the resource when a reference
  creates it first, and evaluates only a bucket policy's statements
  without conditions (moto ignores conditions: a TLS-only Deny refused
  every request over its plain HTTP);
- keeps an SSM parameter's value that an update passes again (the
  bootstrap version, UsePreviousValue) instead of looking it up as a name;
- answers ChangeSetNotFound for a change set that is not there (CDK waits
  for it before an update);
- turns a type no model knows into an error, and an error while a change
  set executes into a failed stack (CREATE_FAILED or UPDATE_FAILED, the
  error in the stack's events): moto answers such an error 500, the SDK
  retries, and the retry finds nothing left to do and completes the stack.

An update of one of the models below that it does not implement fails the
deployment, naming the resource, rather than pretend it was applied.
"""

import json
import logging
import sys
from typing import Any

from moto.apigateway.models import apigateway_backends
from moto.cloudformation import exceptions as cfn_exceptions
from moto.cloudformation import models as cfn_models
from moto.cloudformation import parsing
from moto.cloudwatch.models import cloudwatch_backends
from moto.core.common_models import CloudFormationModel
from moto.kms import models as kms_models
from moto.logs.models import logs_backends
from moto.s3.models import s3_backends
from moto.secretsmanager.models import secretsmanager_backends
from moto.server import main
from moto.sns.models import sns_backends
from moto.sqs.models import sqs_backends
from moto.utilities.utils import get_partition

log = logging.getLogger("rehearse")

# moto files every model class under its service, the second part of the
# module's dotted name (moto.<service>.models): these are "rehearse"'s.
LAUNCHED = __name__ == "__main__"
__name__ = "local.rehearse"


class RehearsalModel(CloudFormationModel):
    """A resource created through a moto backend; physical id given at creation."""

    def __init__(self, physical_id: str, attrs: dict[str, str] | None = None):
        self._physical_id = physical_id
        self._attrs = attrs or {}

    @property
    def physical_resource_id(self) -> str:
        return self._physical_id

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return True

    def get_cfn_attribute(self, attribute_name: str) -> Any:
        if attribute_name not in self._attrs:
            raise KeyError(f"rehearse: {self.cloudformation_type()} has no attribute {attribute_name} in this model")
        return self._attrs[attribute_name]

    @staticmethod
    def cloudformation_name_type() -> str:
        return ""

    @classmethod
    def update_from_cloudformation_json(cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name):  # type: ignore[no-untyped-def,override]
        raise NotImplementedError(
            f"rehearse: moto cannot update {cls.cloudformation_type()} {original_resource.physical_resource_id} in place: "
            "model the update in local/moto/rehearse_server.py"
        )

    @classmethod
    def delete_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name):  # type: ignore[no-untyped-def,override]
        pass

    def is_created(self) -> bool:
        return True


def tag_map(props: dict[str, Any]) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in props.get("Tags", [])}


class Secret(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SecretsManager::Secret"

    @staticmethod
    def cloudformation_name_type() -> str:
        return "Name"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        backend = secretsmanager_backends[account_id][region_name]
        answer = json.loads(backend.create_secret(
            name=resource_name, secret_string=props.get("SecretString"), secret_binary=None,
            description=props.get("Description"), tags=props.get("Tags", []), kms_key_id=props.get("KmsKeyId"),
            client_request_token=None, replica_regions=[], force_overwrite=False,
        ))
        return cls(answer["ARN"], {"Id": answer["ARN"]})


class Authorizer(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::ApiGateway::Authorizer"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        authorizer = apigateway_backends[account_id][region_name].create_authorizer(
            restapi_id=props["RestApiId"], name=props.get("Name", resource_name), authorizer_type=props["Type"],
            provider_arns=props.get("ProviderARNs"), auth_type=props.get("AuthType"),
            authorizer_uri=props.get("AuthorizerUri"), authorizer_credentials=props.get("AuthorizerCredentials"),
            identity_source=props.get("IdentitySource"),
            identiy_validation_expression=props.get("IdentityValidationExpression"),
            authorizer_result_ttl=props.get("AuthorizerResultTtlInSeconds"),
        )
        return cls(authorizer.id, {"AuthorizerId": authorizer.id})


# CloudFormation's MethodSettings properties and the paths of API Gateway's
# UpdateStage patch operations that set them.
METHOD_SETTINGS = {
    "ThrottlingRateLimit": "throttling/rateLimit",
    "ThrottlingBurstLimit": "throttling/burstLimit",
    "LoggingLevel": "logging/loglevel",
    "DataTraceEnabled": "logging/dataTrace",
    "MetricsEnabled": "metrics/enabled",
    "CachingEnabled": "caching/enabled",
    "CacheTtlInSeconds": "caching/ttlInSeconds",
    "CacheDataEncrypted": "caching/dataEncrypted",
}


def stage_operations(props: dict[str, Any]) -> list[dict[str, str]]:
    """The UpdateStage patch operations that give a stage its properties."""
    ops = [{"op": "replace", "path": "/deploymentId", "value": props["DeploymentId"]}]
    if "TracingEnabled" in props:
        ops.append({"op": "replace", "path": "/tracingEnabled", "value": str(props["TracingEnabled"]).lower()})
    access = props.get("AccessLogSetting")
    if access:
        ops.append({"op": "replace", "path": "/accessLogSettings/destinationArn", "value": access["DestinationArn"]})
        ops.append({"op": "replace", "path": "/accessLogSettings/format", "value": access.get("Format", "")})
    for ms in props.get("MethodSettings", []):
        resource = ms.get("ResourcePath", "/*").lstrip("/").replace("/", "~1") or "*"
        for prop, path in METHOD_SETTINGS.items():
            if prop in ms:
                value = ms[prop]
                value = str(value).lower() if isinstance(value, bool) else str(value)
                ops.append({"op": "replace", "path": f"/{resource}/{ms.get('HttpMethod', '*')}/{path}", "value": value})
    return ops


class Stage(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::ApiGateway::Stage"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        backend = apigateway_backends[account_id][region_name]
        stage = backend.create_stage(
            function_id=props["RestApiId"], stage_name=props["StageName"], deploymentId=props["DeploymentId"],
            variables=props.get("Variables"), description=props.get("Description", ""),
            cacheClusterEnabled=props.get("CacheClusterEnabled"), cacheClusterSize=props.get("CacheClusterSize"),
            tags=tag_map(props), tracing_enabled=props.get("TracingEnabled"),
        )
        stage.apply_operations(stage_operations(props))
        return cls(props["StageName"])

    @classmethod
    def update_from_cloudformation_json(cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        if props["StageName"] != original_resource.physical_resource_id:
            return super().update_from_cloudformation_json(original_resource, new_resource_name, cloudformation_json, account_id, region_name)
        backend = apigateway_backends[account_id][region_name]
        backend.get_stage(props["RestApiId"], props["StageName"]).apply_operations(stage_operations(props))
        return original_resource


class GatewayResponse(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::ApiGateway::GatewayResponse"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        apigateway_backends[account_id][region_name].put_gateway_response(
            rest_api_id=props["RestApiId"], response_type=props["ResponseType"], status_code=props.get("StatusCode"),
            response_parameters=props.get("ResponseParameters"), response_templates=props.get("ResponseTemplates"),
        )
        return cls(f"{props['RestApiId']}-{props['ResponseType']}")


class ApiGatewayAccount(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::ApiGateway::Account"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        role = cloudformation_json["Properties"].get("CloudWatchRoleArn")
        if role:
            apigateway_backends[account_id][region_name].update_account(
                [{"op": "replace", "path": "/cloudwatchRoleArn", "value": role}])
        return cls(resource_name)


class Alarm(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::CloudWatch::Alarm"

    @staticmethod
    def cloudformation_name_type() -> str:
        return "AlarmName"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        if "Metrics" in props:
            raise NotImplementedError(f"rehearse: alarm {resource_name}: metric math (Metrics) is not modelled")
        alarm = cloudwatch_backends[account_id][region_name].put_metric_alarm(
            name=resource_name, namespace=props.get("Namespace"), metric_name=props.get("MetricName"),
            comparison_operator=props["ComparisonOperator"], evaluation_periods=props["EvaluationPeriods"],
            period=props.get("Period"), threshold=props.get("Threshold"), statistic=props.get("Statistic"),
            description=props.get("AlarmDescription"), dimensions=props.get("Dimensions", []),
            alarm_actions=props.get("AlarmActions", []), datapoints_to_alarm=props.get("DatapointsToAlarm"),
            extended_statistic=props.get("ExtendedStatistic"), ok_actions=props.get("OKActions", []),
            insufficient_data_actions=props.get("InsufficientDataActions", []), unit=props.get("Unit"),
            actions_enabled=props.get("ActionsEnabled", True), treat_missing_data=props.get("TreatMissingData"),
            evaluate_low_sample_count_percentile=props.get("EvaluateLowSampleCountPercentile"),
            threshold_metric_id=props.get("ThresholdMetricId"), tags=props.get("Tags", []),
        )
        return cls(resource_name, {"Arn": alarm.alarm_arn})


class MetricFilter(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::Logs::MetricFilter"

    @staticmethod
    def cloudformation_name_type() -> str:
        return "FilterName"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        transformations = [
            {"metricName": t["MetricName"], "metricNamespace": t["MetricNamespace"], "metricValue": t["MetricValue"],
             **({"defaultValue": t["DefaultValue"]} if "DefaultValue" in t else {})}
            for t in props["MetricTransformations"]
        ]
        logs_backends[account_id][region_name].put_metric_filter(
            filter_name=resource_name, filter_pattern=props["FilterPattern"],
            log_group_name=props["LogGroupName"], metric_transformations=transformations,
        )
        return cls(resource_name)


class BucketPolicy(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::S3::BucketPolicy"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        s3_backends[account_id][get_partition(region_name)].put_bucket_policy(
            props["Bucket"], json.dumps(props["PolicyDocument"]).encode())
        return cls(resource_name)


class QueuePolicy(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SQS::QueuePolicy"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        for url in props["Queues"]:
            sqs_backends[account_id][region_name].set_queue_attributes(
                url.rstrip("/").rsplit("/", 1)[-1], {"Policy": json.dumps(props["PolicyDocument"])})
        return cls(resource_name)


class TopicPolicy(RehearsalModel):
    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SNS::TopicPolicy"

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def,override]
        props = cloudformation_json["Properties"]
        for arn in props["Topics"]:
            sns_backends[account_id][region_name].set_topic_attribute(arn, "Policy", json.dumps(props["PolicyDocument"]))
        return cls(resource_name)


def fix_kms_key() -> None:
    """moto's AWS::KMS::Key: CloudFormation's tags as KMS's, the policy as a document, the key's spec and usage."""
    def create(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def]
        props = cloudformation_json["Properties"]
        key = kms_models.kms_backends[account_id][region_name].create_key(
            policy=json.dumps(props["KeyPolicy"]) if isinstance(props.get("KeyPolicy"), dict) else props.get("KeyPolicy"),
            key_usage=props.get("KeyUsage", "ENCRYPT_DECRYPT"), key_spec=props.get("KeySpec", "SYMMETRIC_DEFAULT"),
            description=props.get("Description"),
            tags=[{"TagKey": t["Key"], "TagValue": t["Value"]} for t in props.get("Tags", [])],
        )
        key.key_rotation_status = props.get("EnableKeyRotation", False)
        key.enabled = props.get("Enabled", True)
        return key

    kms_models.Key.create_from_cloudformation_json = classmethod(create)  # type: ignore[method-assign,assignment]


def also_on_create(model: Any, apply: Any) -> None:
    """After moto's model creates its resource, apply(resource, properties, account, region) sets what that model leaves out."""
    create = model.create_from_cloudformation_json.__func__

    def wrapped(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[no-untyped-def]
        resource = create(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs)
        apply(resource, cloudformation_json.get("Properties", {}), account_id, region_name)
        return resource

    model.create_from_cloudformation_json = classmethod(wrapped)


def replication(config: dict[str, Any]) -> dict[str, Any]:
    """A bucket's ReplicationConfiguration as CloudFormation spells it, as moto's backend keeps
    one (the request's XML read as a dict: Rule, ID)."""
    rules = []
    for r in config.get("Rules", []):
        rule = {k: v for k, v in r.items() if k not in ("Id",)}
        rule["ID"] = r.get("Id", "")
        rules.append(rule)
    return {"Role": config["Role"], "Rule": rules}


def complete_moto_models() -> None:
    """Properties moto's own models drop: a function's architectures, a table's TTL, a bucket's
    versioning, Object Lock and replication; and a deployment's id, which its stage references."""
    from moto.apigateway.models import Deployment
    from moto.awslambda.models import LambdaFunction
    from moto.dynamodb.models import dynamodb_backends
    from moto.dynamodb.models.table import Table
    from moto.s3.models import FakeBucket

    def function(fn, props, account_id, region_name):  # type: ignore[no-untyped-def]
        fn.architectures = props.get("Architectures", ["x86_64"])

    def table(t, props, account_id, region_name):  # type: ignore[no-untyped-def]
        if "TimeToLiveSpecification" in props:
            dynamodb_backends[account_id][region_name].update_time_to_live(t.name, props["TimeToLiveSpecification"])

    def bucket(b, props, account_id, region_name):  # type: ignore[no-untyped-def]
        backend = s3_backends[account_id][get_partition(region_name)]
        if "VersioningConfiguration" in props:
            backend.put_bucket_versioning(b.name, props["VersioningConfiguration"]["Status"])
        if props.get("ObjectLockEnabled"):
            retention = props.get("ObjectLockConfiguration", {}).get("Rule", {}).get("DefaultRetention", {})
            backend.put_object_lock_configuration(b.name, True, retention.get("Mode"), retention.get("Days"), retention.get("Years"))
        if "ReplicationConfiguration" in props:
            backend.put_bucket_replication(b.name, replication(props["ReplicationConfiguration"]))

    also_on_create(LambdaFunction, function)
    also_on_create(Table, table)
    also_on_create(FakeBucket, bucket)
    Deployment.physical_resource_id = property(lambda self: self.id)  # type: ignore[attr-defined]


def enforce_only_unconditional_bucket_statements() -> None:
    """moto evaluates a bucket policy's statements without their conditions: a TLS-only Deny
    (aws:SecureTransport false) would refuse every request. It evaluates the statements without a
    Condition; the others it cannot evaluate, so they are left out (and listed in the infra README
    as checked on a real deploy)."""
    from moto.iam.access_control import IAMPolicy, PermissionResult
    from moto.s3.models import FakeBucket

    def get_permission(self, action: str, resource: str) -> Any:  # type: ignore[no-untyped-def]
        if self.policy is None:
            return PermissionResult.NEUTRAL
        doc = json.loads(self.policy.decode())
        statements = doc.get("Statement", [])
        statements = [s for s in ([statements] if isinstance(statements, dict) else statements) if "Condition" not in s]
        if not statements:
            return PermissionResult.NEUTRAL
        return IAMPolicy(json.dumps({**doc, "Statement": statements})).is_action_permitted(action, resource)

    FakeBucket.get_permission = get_permission  # type: ignore[method-assign]


def create_dependencies_first() -> None:
    """moto creates a resource when it is first referenced (a Ref, a GetAtt) without its DependsOn:
    an API's deployment, referenced by its stage, was created before the methods it depends on."""
    getitem = parsing.ResourceMap.__getitem__

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        if key not in self._parsed_resources:
            depends = (self._resource_json_map.get(key) or {}).get("DependsOn", [])
            for dep in [depends] if isinstance(depends, str) else depends:
                self[dep]
        return getitem(self, key)

    parsing.ResourceMap.__getitem__ = __getitem__


def keep_resolved_ssm_parameters() -> None:
    """On an update CDK passes the BootstrapVersion parameter with UsePreviousValue: moto hands
    the value it resolved from SSM before back to SSM as a parameter's name, and fails."""
    from moto.ssm import ssm_backends

    parse = parsing.ResourceMap.parse_ssm_parameter

    def parse_ssm_parameter(self, value, value_type):  # type: ignore[no-untyped-def]
        if ssm_backends[self._account_id][self._region_name].get_parameter(value) is None and not value.startswith("/"):
            return value
        return parse(self, value, value_type)

    parsing.ResourceMap.parse_ssm_parameter = parse_ssm_parameter


def fail_on_unknown_types() -> None:
    """A type without a model is an error, not a warning and a skipped resource."""
    known = parsing.resource_class_from_type
    # CDK's version report, when a synth has one: nothing to create.
    parsing.NULL_MODELS.append("AWS::CDK::Metadata")

    def resource_class_from_type(resource_type: str):  # type: ignore[no-untyped-def]
        cls = known(resource_type)
        if cls is None and resource_type not in parsing.NULL_MODELS:
            raise NotImplementedError(
                f"rehearse: moto has no CloudFormation model for {resource_type}: add one to local/moto/rehearse_server.py")
        return cls

    parsing.resource_class_from_type = resource_class_from_type


class ChangeSetNotFound(cfn_exceptions.CloudFormationError):
    code = "ChangeSetNotFound"


def answer_change_set_not_found() -> None:
    """A change set that is not there is ChangeSetNotFound, which CDK waits for after deleting
    its last one before an update; moto answered ValidationError, and CDK gave up."""
    describe = cfn_models.CloudFormationBackend.describe_change_set

    def describe_change_set(self, change_set_name):  # type: ignore[no-untyped-def]
        try:
            return describe(self, change_set_name)
        except cfn_exceptions.ValidationError:
            raise ChangeSetNotFound(f"ChangeSet [{change_set_name}] does not exist") from None

    cfn_models.CloudFormationBackend.describe_change_set = describe_change_set


def fail_change_sets_loudly() -> None:
    """An error while a change set executes fails the stack, its reason in an event, instead of a
    500 that the SDK's retry turns into success; a change set executed gives the stack its outputs."""
    execute = cfn_models.CloudFormationBackend.execute_change_set

    def execute_change_set(self, change_set_name, stack_name=None):  # type: ignore[no-untyped-def]
        try:
            execute(self, change_set_name, stack_name)
            # moto leaves the stack's template and outputs those it had before.
            stack = self.stacks[self.describe_change_set(change_set_name).stack_id]
            stack._parse_template()
            stack.output_map = stack._create_output_map()
            return None
        except Exception as err:  # noqa: BLE001 - every error is the stack's failure
            change_set = self.describe_change_set(change_set_name)
            stack = self.stacks[change_set.stack_id]
            status = f"{change_set.change_set_type}_FAILED"
            log.exception("rehearse: stack %s: %s: %s", stack.name, status, err)
            change_set.execution_status = "EXECUTE_FAILED"
            stack.status = status
            stack._add_stack_event(status, resource_status_reason=f"{type(err).__name__}: {err}")
            return None

    cfn_models.CloudFormationBackend.execute_change_set = execute_change_set


def register_models() -> None:
    """moto's models and RehearsalModel's (moto lists only CloudFormationModel's direct subclasses)."""
    models = [m for m in CloudFormationModel.__subclasses__() if m is not RehearsalModel] + RehearsalModel.__subclasses__()
    parsing.get_model_list = lambda: models
    parsing.get_model_map.cache_clear()
    parsing.get_name_type_map.cache_clear()


if LAUNCHED:
    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    fix_kms_key()
    complete_moto_models()
    enforce_only_unconditional_bucket_statements()
    create_dependencies_first()
    keep_resolved_ssm_parameters()
    fail_on_unknown_types()
    answer_change_set_not_found()
    fail_change_sets_loudly()
    register_models()
    main(sys.argv[1:])
