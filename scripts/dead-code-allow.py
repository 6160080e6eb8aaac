# Vulture whitelist: names vulture reports that are really used (one block a package).
# ruff: noqa
# type: ignore

# prism-coding-tools
_.filename  # OSError.filename set so the error message names the walked path (_fs)

# prism-coding-server
_.sandboxed  # BuiltServer.sandboxed: public field, read by hosts embedding the server

# prism-core
__getattr__  # prism.core: PEP 562 lazy loading of the public names
__dir__  # prism.core: lists the lazily loaded names
_.throw_if_aborted  # AbortSignal: public API for handlers
_.paths  # ExecutionAction: field read by execution policies in other packages
_.command  # ExecutionAction: field read by execution policies
_.cwd  # ExecutionAction: field read by execution policies
_.risk  # ExecutionAction: field read by execution policies
_.register_tool  # ExtensionAPI: the protocol an extension's setup() calls
api  # Extension.setup(api): protocol parameter
_.contributions  # ExtensionKernel: public property read by hosts
_.loaded  # ExtensionKernel: public property read by hosts
_.distribution  # ExtensionDescriptor: public field shown to hosts choosing what to load
_.finished_at  # ToolCallRecord: public ledger field
_.records  # InMemoryRunLedger: public property read by hosts and tests
_.role  # messages: the discriminator providers read
_.finish_reason  # RunResult: public field
_.final_text  # RunResult: public property
_.use  # MiddlewareRegistry.use: public API
_.unchanged  # ExternalOutcome: public field read by the framework integrations
_.visible_tools  # ToolPipeline: public API used by the framework integrations
_.dispatch_external  # ToolPipeline: public API used by the framework integrations
_.unregister  # ToolRegistry: public API
_.subscribe  # ToolRegistry: public API
_.resolve  # ToolRegistry: public API
_.priority  # ContentAnnotations: public field (MCP annotations)
_.is_error  # ToolResult: public property
_.duration_seconds  # events: public field read by sinks
