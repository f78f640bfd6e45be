"""pytest-lsp fixtures: a client that records every publishDiagnostics and every
client/registerCapability, connected to ``python -m offload_ls.lsp`` over stdio."""

from __future__ import annotations

import sys

import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER_COMMAND = [sys.executable, "-m", "offload_ls.lsp"]


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every publishDiagnostics in order (so tests can
    wait for a given document version) and the registrations the server asked for."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []


def _publish(client: RecordingClient, params: types.PublishDiagnosticsParams):
    client.published.append(params)
    client.diagnostics[params.uri] = params.diagnostics


def _register(client: RecordingClient, params: types.RegistrationParams):
    client.registrations.extend(params.registrations)


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _publish
    features[types.CLIENT_REGISTER_CAPABILITY] = _register
    register_lsp_features(client, features)
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client))
async def client(lsp_client: RecordingClient):
    # Tests initialize the session themselves (lsp_helpers.initialize), each with the
    # capabilities, workspace folder and settings it needs.
    yield
    await lsp_client.shutdown_session()
