"""SQS (visibility, redelivery, dead-lettering, batches) and SSM parameters through
boto3, against moto and the twin (tests/twin/differential.py)."""
from __future__ import annotations

import json

from tests.twin.differential import Record, assert_same, client


def _messages(answer) -> list:
    return [(m["Body"], m.get("Attributes", {}).get("ApproximateReceiveCount"),
             m.get("MessageAttributes"), m["MD5OfBody"], m.get("MD5OfMessageAttributes"))
            for m in (answer or {}).get("Messages", [])]


def test_queues_visibility_redelivery_and_dead_letters():
    def scenario():
        sqs, log = client("sqs"), Record()
        dlq = sqs.create_queue(QueueName="work-dlq")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])
        log.note(arn)
        policy = json.dumps({"deadLetterTargetArn": arn["Attributes"]["QueueArn"],
                             "maxReceiveCount": "2"})
        url = log.call(sqs.create_queue, QueueName="work", Attributes={
            "VisibilityTimeout": "60", "RedrivePolicy": policy})["QueueUrl"]
        log.call(sqs.create_queue, QueueName="work", Attributes={"VisibilityTimeout": "61"},
                 code_only=True)
        log.call(sqs.get_queue_url, QueueName="work")
        log.call(sqs.get_queue_url, QueueName="nothing")
        log.call(sqs.list_queues, QueueNamePrefix="work")
        log.call(sqs.send_message, QueueUrl=url, MessageBody="one", MessageAttributes={
            "kind": {"DataType": "String", "StringValue": "k"},
            "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}})
        log.call(sqs.send_message_batch, QueueUrl=url, Entries=[
            {"Id": "a", "MessageBody": "two"}, {"Id": "b", "MessageBody": "three"}])
        log.call(sqs.send_message_batch, QueueUrl=url, Entries=[
            {"Id": "a", "MessageBody": "x"}, {"Id": "a", "MessageBody": "y"}])
        log.call(sqs.send_message_batch, QueueUrl=url, Entries=[])
        first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0,
                                    AttributeNames=["ApproximateReceiveCount"],
                                    MessageAttributeNames=["All"])
        log.note(_messages(first))
        log.note(_messages(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)))
        handles = [m["ReceiptHandle"] for m in first["Messages"]]
        log.call(sqs.delete_message, QueueUrl=url, ReceiptHandle=handles[0])
        log.call(sqs.change_message_visibility, QueueUrl=url, ReceiptHandle=handles[1],
                 VisibilityTimeout=0)
        again = sqs.receive_message(QueueUrl=url, AttributeNames=["All"], MaxNumberOfMessages=10)
        log.note(_messages(again))
        for message in again.get("Messages", []):
            sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"],
                                          VisibilityTimeout=0)
        log.note(_messages(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)))
        log.note(_messages(sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10)))
        counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "VisibilityTimeout", "RedrivePolicy"])["Attributes"]
        counts["RedrivePolicy"] = json.loads(counts["RedrivePolicy"])
        log.note(counts)
        answer = sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": "x", "ReceiptHandle": m["ReceiptHandle"]} for m in again["Messages"]])
        log.note([answer["Successful"], [(f["Id"], f["Code"]) for f in answer["Failed"]]])
        log.call(sqs.receive_message, QueueUrl=url, MaxNumberOfMessages=11, code_only=True)
        log.call(sqs.purge_queue, QueueUrl=url)
        log.call(sqs.set_queue_attributes, QueueUrl=url, Attributes={"VisibilityTimeout": "5"})
        log.call(sqs.get_queue_attributes, QueueUrl=url, AttributeNames=["VisibilityTimeout",
                                                                          "DelaySeconds"])
        log.call(sqs.get_queue_attributes, QueueUrl=url + "-gone", AttributeNames=["All"])
        return log
    assert_same(scenario)


def test_parameters():
    def scenario():
        ssm, log = client("ssm"), Record()
        log.call(ssm.put_parameter, Name="/app/key", Value="s3cret", Type="SecureString")
        log.call(ssm.put_parameter, Name="/app/key", Value="other", Type="SecureString")
        log.call(ssm.put_parameter, Name="/app/key", Value="other", Type="SecureString",
                 Overwrite=True)
        log.call(ssm.put_parameter, Name="/app/sub/deep", Value="d", Type="String")
        for n in range(12):
            ssm.put_parameter(Name=f"/app/p{n:02d}", Value=str(n), Type="String")
        answer = ssm.get_parameter(Name="/app/key", WithDecryption=True)["Parameter"]
        log.note([answer["Value"], answer["Version"], answer["Type"]])
        log.call(ssm.get_parameter, Name="/app/none")
        answer = ssm.get_parameters(Names=["/app/p01", "/app/none"], WithDecryption=True)
        log.note([[p["Name"] for p in answer["Parameters"]], answer["InvalidParameters"]])
        for recursive in (False, True):
            pages = ssm.get_paginator("get_parameters_by_path").paginate(
                Path="/app", Recursive=recursive, WithDecryption=True)
            log.note(sorted(p["Name"] for page in pages for p in page["Parameters"]))
        log.call(ssm.delete_parameter, Name="/app/key")
        log.call(ssm.delete_parameter, Name="/app/key")
        return log
    assert_same(scenario)
