// Generated from the gengate OpenAPI document by packages/client/scripts/generate-types.ts.
// Do not edit: run `npm run generate-types -w @gengate/client` after the API changes.
// A test fails when this file differs from what the current server document generates.
export interface paths {
    "/public/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Active public models with prices in rubles */
        get: operations["listPublicModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/public/models/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One public model: its price, its params JSON Schema and an example request body
         * @description Answers 404 model_not_found for an unknown, internal, inactive, hidden or unpriced model. POST `example` to `example_endpoint` as is.
         */
        get: operations["getPublicModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Model list in OpenAI's shape, or Anthropic's when the request carries anthropic-version
         * @description Anthropic's shape (data[].type = model, display_name, created_at; has_more, first_id, last_id; limit, after_id, before_id) lists the text models, which POST /v1/messages serves.
         */
        get: operations["listOpenAiModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process and its database answer */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One model the calling key may use (OpenAI model object) */
        get: operations["getOpenAiModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account of the calling key */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Balance of the calling key in rubles */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage of the calling key per model and UTC day
         * @description from and to: YYYY-MM-DD (UTC), both included; default the last 30 days up to today; at most 366 days. Requests count on the day they were made.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/topup-methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Payment methods that are on, and the bounds of one top-up */
        get: operations["listTopupMethods"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/topups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Top-ups of the calling key, newest first */
        get: operations["listTopups"];
        put?: never;
        /**
         * Start a top-up by card: answers the payment page to send the payer to
         * @description Body: {"amount_rub", "method", "return_url"?, "email"?}. Supports the Idempotency-Key header: a retry with the same key never makes a second payment.
         */
        post: operations["createTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redeem a code onto the calling key */
        post: operations["redeemCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/topups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One top-up of the calling key */
        get: operations["getTopup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat completion (OpenAI-compatible), streaming with stream: true
         * @description Billed per token: a hold before the upstream call, the exact cost of the reported usage captured after it. Only known fields reach the upstream: another answers 422 unknown_field (docs/chat.md).
         */
        post: operations["createChatCompletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a model response (OpenAI Responses API), streaming with stream: true
         * @description Runs as a chat completion with the same checks and billing. Nothing is stored (store: false): previous_response_id, item_reference and built-in tools are refused.
         */
        post: operations["createResponse"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a message (Anthropic Messages API), streaming with stream: true
         * @description Authenticated by x-api-key or Authorization: Bearer. Claude models on an Anthropic route are passed through as sent; other text models are translated to chat completions. Billed per token like chat completions, prompt-cache writes and reads at their own prices, server tools per use.
         */
        post: operations["createMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/count_tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Count the input tokens of a Messages request (free)
         * @description Claude models on an Anthropic route are counted by Anthropic; other models by the gateway’s estimate.
         */
        post: operations["countMessageTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/images/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate an image (OpenAI-compatible); waits for it up to SYNC_IMAGE_WAIT_MS
         * @description Body: {model, prompt, size?, n?: 1, response_format?: "url" | "b64_json", extra_body?: {native params}}. Creates an image task (held and charged as on POST /generate) and answers {created, data: [{url}]} when it is done, or 504 upstream_timeout with error.task_id to poll GET /tasks/{task_id}. Supports the Idempotency-Key header.
         */
        post: operations["createImage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling account's videos, newest first (OpenAI cursor list)
         * @description Video tasks made through POST /v1/videos or POST /generate, deleted ones left out. limit 1-100 (20), after = the id of the last video of the previous page, order desc (default) or asc.
         */
        get: operations["listVideos"];
        put?: never;
        /**
         * Create a video (OpenAI-compatible); an asynchronous task
         * @description JSON or multipart/form-data text fields: {model?: "sora-2", prompt, seconds?, size?, input_reference?: {image_url}, extra_body?: {native params}}. Holds the cost as POST /generate does and answers the video object with status queued. File uploads are refused (422). Supports the Idempotency-Key header.
         */
        post: operations["createVideo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/videos/{video_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A video of the calling account (OpenAI video object) */
        get: operations["getVideo"];
        put?: never;
        post?: never;
        /**
         * Delete the stored MP4 of a completed or failed video; the charge stays
         * @description A queued or in-progress video is 409 video_not_ready. Afterwards the video is 404 here and left out of the list; GET /tasks/{id} keeps the task (its video_url answers 404) with result.deleted_at.
         */
        delete: operations["deleteVideo"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/videos/{video_id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The MP4 of a completed video (variant=video only); supports Range */
        get: operations["getVideoContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a video or image generation task
         * @description Creates a video or image task: the parameters of one model inside `params`, selected by `params.model_name` (GenerateRequest). The cost is held on the key in the same transaction as the task and answers 202 with the task id; poll GET /tasks/{task_id} or pass `params.webhook_url`. A failed task returns the hold. Checks run in this order: Idempotency-Key 400 → replay / 422 mismatch → body 400 → model_name 422 → unknown model 404 → allowed_models 403 → no price 422 → params 400/422 → balance 402.
         */
        post: operations["createTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling account's tasks, newest first (cursor list)
         * @description limit 1-100 (20); after = a task id (the previous page's next_cursor); status = pending | processing | completed | failed; model = a model_name.
         */
        get: operations["listTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A task of the calling account */
        get: operations["getTask"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/objects/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A generated file (the video_url / image_url of a task); supports Range
         * @description The URL itself is the capability: no key. Supports Range (206) and answers with the stored Content-Type.
         */
        get: operations["getObject"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an account */
        post: operations["adminCreateAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/accounts/{messaging_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An account with its webhook secret and its keys (masked) */
        get: operations["adminGetAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change an account's coefficient or low-balance notice threshold (null clears) */
        patch: operations["adminUpdateAccount"];
        trace?: never;
    };
    "/admin/accounts/{messaging_id}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a key; the only answer with the full key_value */
        post: operations["adminCreateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/accounts/{messaging_id}/webhook-secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the account's webhook secret; the previous one stays valid for 24 h */
        post: operations["adminRotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a key; it answers 401 from then on */
        delete: operations["adminDeleteKey"];
        options?: never;
        head?: never;
        /** Change a key's restrictions and limits (null clears one) */
        patch: operations["adminUpdateKey"];
        trace?: never;
    };
    "/admin/keys/{id}/topup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add rubles to a key */
        post: operations["adminTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/maintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Turn maintenance mode on or off */
        put: operations["adminSetMaintenance"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every model, internal variants and inactive ones included */
        get: operations["adminListModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/models/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a catalog model */
        put: operations["adminPutModel"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Webhook deliveries by status (default: those that ran out of attempts) */
        get: operations["adminListWebhooks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Provider accounts with their health (up, cooling, down) and jobs in flight */
        get: operations["adminListProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/webhooks/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver a webhook again (three new attempts) */
        post: operations["adminRedeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/accounts/{messaging_id}/login-link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A one-time panel sign-in link, valid 15 minutes */
        post: operations["adminCreateLoginLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: operations["adminListTopups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/topups/{id}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["adminRefundTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: operations["adminCreateCodes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/reports/margin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Revenue, provider cost and margin per UTC day, model and provider */
        get: operations["adminMarginReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics of this process */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: database and Redis reachable, migrations done */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/version": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The API version (semver) and the package build */
        get: operations["version"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/status.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public status: health of each component and the last hour per model family */
        get: operations["status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The public status page (HTML) */
        get: operations["statusPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An upstream provider's callback (for the providers, not for clients)
         * @description A callback is only a hint to poll the job now: the result always comes from the provider's own API. The body is read raw, whatever its content type.
         */
        post: operations["providerCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/payments/{method}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment provider's notification (for YooKassa and Stripe, not for clients)
         * @description YooKassa: read only from YOOKASSA_NOTIFY_IPS (else 403), and only as the id of a payment that is then read back. Stripe: verified by Stripe-Signature (else 400). A method that is off answers 404.
         */
        post: operations["paymentNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    taskFinished: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A task became final (completed or failed)
         * @description Sent to the task's `webhook_url` when it becomes final, at least once: retried with back-off until your endpoint answers 2xx. Verify the `webhook-signature` header (Standard Webhooks: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the account's webhook secret) and use `webhook-id` to drop duplicates.
         */
        post: operations["taskFinished"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description The one error body of every 4xx and 5xx answer (OpenAI's shape). `code` comes from the error catalog; `message` says what to change, with a hint where a common mistake is recognisable. */
        Error: {
            error: {
                message: string;
                /** @description OpenAI error type, e.g. invalid_request_error, authentication_error */
                type: string;
                /** @description A code of the error catalog, e.g. invalid_parameter */
                code: string;
                /** @description The request field at fault, when there is one */
                param: string | null;
                /** @description Only on answers about a task that exists (e.g. 504 of POST /v1/images/generations) */
                task_id?: string;
            };
        };
        /** @description The error body of the Messages API (/v1/messages): Anthropic's shape, so Anthropic's SDKs raise their typed errors. */
        AnthropicError: {
            /** @enum {string} */
            type: "error";
            error: {
                /** @description invalid_request_error, authentication_error, permission_error, not_found_error, request_too_large, billing_error, rate_limit_error, api_error, overloaded_error */
                type: string;
                message: string;
            };
        };
        Task: {
            /** Format: uuid */
            task_id: string;
            /** @enum {string} */
            status: "pending" | "processing" | "completed" | "failed";
            result: components["schemas"]["TaskResult"];
            error: string | null;
            /** Format: date-time */
            created_at: string;
            model_name: string;
            /** @description Rubles charged, once final; null before */
            cost: number | null;
            /** Format: date-time */
            finished_at: string | null;
        };
        /** @description null until completed. A video: {video_url, duration}; an image: {image_url, width, height}, and `images` when there are several. URLs are served by GET /objects/{name}. */
        TaskResult: ({
            /** Format: uri */
            video_url?: string;
            /** @description Seconds of video */
            duration?: number | null;
            /** Format: uri */
            image_url?: string;
            width?: number | null;
            height?: number | null;
            images?: {
                /** Format: uri */
                url: string;
                width: number | null;
                height: number | null;
            }[];
            /**
             * Format: date-time
             * @description Set once DELETE /v1/videos/{id} removed the file
             */
            deleted_at?: string;
        } & {
            [key: string]: unknown;
        }) | null;
        /** @description The body of a task's webhook: its final state, sent once it is final, to the task's webhook_url. Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers). */
        WebhookEvent: {
            task_id: string;
            /** @constant */
            status: "completed";
            result: components["schemas"]["TaskResult"];
        } | {
            task_id: string;
            /** @constant */
            status: "failed";
            /** @description Why the task failed, as in GET /tasks/{task_id} */
            error: string;
        };
        TaskList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Task"][];
            has_more: boolean;
            /** @description Pass as `after` for the next page */
            next_cursor: string | null;
        };
        TaskCreated: {
            /** Format: uuid */
            task_id: string;
        };
        Key: {
            id: number;
            name: string | null;
            /** @description Masked (sk_live_abcd…wxyz), except in the answer that creates the key */
            key_value: string;
            /** @description Rubles available */
            balance: number;
            /** @description Rubles held by running tasks and chat calls */
            held: number;
            /** @description null = every model */
            allowed_models: string[] | null;
            /** @description null = any address */
            allowed_ip_cidrs: string[] | null;
            /** @description null = the default */
            rate_limit_per_min: number | null;
            /**
             * Format: date-time
             * @description From then on the key answers 401 key_expired; null = never
             */
            expires_at: string | null;
            /** @description Spend cap per period; null = none */
            spend_limit_rub: number | null;
            /** @enum {string|null} */
            spend_limit_period: "day" | "week" | "month" | "total" | null;
            /** @description Held or spent in the current period (null without a cap) */
            spent_in_period_rub: number | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description A new key: key_value is the full key, shown this once */
        KeyCreated: {
            id: number;
            name: string | null;
            /** @description Masked (sk_live_abcd…wxyz), except in the answer that creates the key */
            key_value: string;
            /** @description Rubles available */
            balance: number;
            /** @description Rubles held by running tasks and chat calls */
            held: number;
            /** @description null = every model */
            allowed_models: string[] | null;
            /** @description null = any address */
            allowed_ip_cidrs: string[] | null;
            /** @description null = the default */
            rate_limit_per_min: number | null;
            /**
             * Format: date-time
             * @description From then on the key answers 401 key_expired; null = never
             */
            expires_at: string | null;
            /** @description Spend cap per period; null = none */
            spend_limit_rub: number | null;
            /** @enum {string|null} */
            spend_limit_period: "day" | "week" | "month" | "total" | null;
            /** @description Held or spent in the current period (null without a cap) */
            spent_in_period_rub: number | null;
            /** Format: date-time */
            created_at: string;
        };
        Account: {
            messaging_id: number;
            /** @description Price multiplier of the account (1 = catalog prices) */
            coefficient: number;
            keys: components["schemas"]["Key"][];
        };
        AdminAccount: {
            messaging_id: number;
            /** @description Price multiplier of the account (1 = catalog prices) */
            coefficient: number;
            keys: components["schemas"]["Key"][];
            /** @description A Telegram notice goes to the owner when a key's funds fall below this; null = none (not in the answer that creates the account) */
            low_balance_rub?: number | null;
            /** @description whsec_… */
            webhook_secret: string;
        };
        CatalogModel: {
            id: string;
            name: string;
            provider: string;
            /** @enum {string} */
            kind: "video" | "image" | "text";
            /**
             * @description What priceRub is per: a result, a second of video, 1M input tokens
             * @enum {string}
             */
            unit: "shot" | "sec" | "mtok";
            /** @description Rubles per unit */
            priceRub: number | null;
            /** @description Text models: rubles per 1M output tokens */
            priceOutputRub?: number | null;
            /** @description Claude models: rubles per 1M prompt-cache write tokens (POST /v1/messages) */
            priceCacheWriteRub?: number | null;
            /** @description Claude models: rubles per 1M prompt-cache read tokens (POST /v1/messages) */
            priceCacheReadRub?: number | null;
            /** @description Claude models: rubles per 1,000 web searches; null = the web_search tool is refused */
            priceWebSearchRub?: number | null;
            /** @description Claude models: rubles per 1,000 web fetches; null = the web_fetch tool is refused */
            priceWebFetchRub?: number | null;
            /** @description Text models: accepts image input */
            vision?: boolean;
        };
        ModelDetail: {
            id: string;
            name: string;
            provider: string;
            /** @enum {string} */
            kind: "video" | "image" | "text";
            /**
             * @description What priceRub is per: a result, a second of video, 1M input tokens
             * @enum {string}
             */
            unit: "shot" | "sec" | "mtok";
            /** @description Rubles per unit */
            priceRub: number | null;
            /** @description Text models: rubles per 1M output tokens */
            priceOutputRub?: number | null;
            /** @description Claude models: rubles per 1M prompt-cache write tokens (POST /v1/messages) */
            priceCacheWriteRub?: number | null;
            /** @description Claude models: rubles per 1M prompt-cache read tokens (POST /v1/messages) */
            priceCacheReadRub?: number | null;
            /** @description Claude models: rubles per 1,000 web searches; null = the web_search tool is refused */
            priceWebSearchRub?: number | null;
            /** @description Claude models: rubles per 1,000 web fetches; null = the web_fetch tool is refused */
            priceWebFetchRub?: number | null;
            /** @description Text models: accepts image input */
            vision?: boolean;
            /** @description JSON Schema of `params` for POST /generate (null for text models) */
            params_schema: {
                [key: string]: unknown;
            } | null;
            /** @description A request body to POST to example_endpoint as is */
            example: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            example_endpoint: "/generate" | "/v1/chat/completions";
        };
        AdminModel: {
            id: string;
            name: string;
            provider: string;
            /** @enum {string} */
            kind: "video" | "image" | "text";
            /**
             * @description What priceRub is per: a result, a second of video, 1M input tokens
             * @enum {string}
             */
            unit: "shot" | "sec" | "mtok";
            /** @description Rubles per unit */
            priceRub: number | null;
            /** @description Text models: rubles per 1M output tokens */
            priceOutputRub?: number | null;
            /** @description Claude models: rubles per 1M prompt-cache write tokens (POST /v1/messages) */
            priceCacheWriteRub?: number | null;
            /** @description Claude models: rubles per 1M prompt-cache read tokens (POST /v1/messages) */
            priceCacheReadRub?: number | null;
            /** @description Claude models: rubles per 1,000 web searches; null = the web_search tool is refused */
            priceWebSearchRub?: number | null;
            /** @description Claude models: rubles per 1,000 web fetches; null = the web_fetch tool is refused */
            priceWebFetchRub?: number | null;
            /** @description Text models: accepts image input */
            vision?: boolean;
            active: boolean;
            visible: boolean;
            route?: {
                provider?: string;
                model?: string;
            } | null;
            params_schema: {
                [key: string]: unknown;
            } | null;
            billing?: {
                [key: string]: unknown;
            } | null;
        };
        WebhookDelivery: {
            id: string;
            task_id: string;
            url: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "undelivered";
            attempts: number;
            /** Format: date-time */
            next_attempt_at?: string | null;
            last_status_code?: number | null;
            last_error?: string | null;
            /** Format: date-time */
            created_at?: string | null;
            /** Format: date-time */
            updated_at?: string | null;
            /** Format: date-time */
            delivered_at?: string | null;
        };
        ProviderAccount: {
            /** @description The provider name in PROVIDERS_FILE (one upstream account) */
            name: string;
            /** @description Its adapter type (fal, replicate, kling, …) */
            type: string;
            /**
             * @description up; cooling: skipped after failing submits, then probed; down: auth or billing refused, re-checked
             * @enum {string}
             */
            state: "up" | "cooling" | "down";
            /** @description Jobs in flight at the account, across every worker */
            in_flight: number;
            /** @description Its cap of jobs in flight (null: none) */
            max_concurrency?: number | null;
            last_error: string | null;
            /**
             * Format: date-time
             * @description The last re-check of a down account, or the last change of state
             */
            checked_at: string | null;
        };
        Video: {
            id: string;
            /** @enum {string} */
            object: "video";
            model: string;
            /** @enum {string} */
            status: "queued" | "in_progress" | "completed" | "failed";
            progress: number;
            created_at: number;
            completed_at: number | null;
            expires_at?: number | null;
            prompt?: string | null;
            seconds: string | null;
            size: string;
            remixed_from_video_id?: string | null;
            error: {
                code: string;
                message: string;
            } | null;
        };
        OpenAiModel: {
            id: string;
            /** @enum {string} */
            object: "model";
            created: number;
            owned_by: string;
        };
        ReadinessChecks: {
            /** @enum {string} */
            database: "ok" | "not_configured" | "failed";
            /** @enum {string} */
            redis: "ok" | "not_configured" | "failed";
            /** @enum {string} */
            migrations: "ok" | "not_configured" | "failed";
        };
        /**
         * Seedance 2.0 (seedance-2)
         * @description Parameters of Seedance 2.0, a video model. 45 RUB per shot.
         */
        Seedance2Params: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "seedance-2";
            prompt?: string;
            /** @default 5 */
            duration?: number;
            /** @enum {string} */
            aspect_ratio?: "16:9" | "4:3" | "1:1" | "3:4" | "9:16" | "21:9";
            /** Format: uri */
            start_image_url?: string;
            /** Format: uri */
            end_image_url?: string;
            reference_image_urls?: string[];
            reference_video_urls?: string[];
            reference_audio_urls?: string[];
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
        };
        /**
         * Kling 2.1 Standard (kling-2-1)
         * @description Parameters of Kling 2.1 Standard, a video model. 6 RUB per sec.
         */
        Kling2_1Params: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "kling-2-1";
            prompt: string;
            negative_prompt?: string;
            /**
             * @default 5
             * @enum {integer}
             */
            duration?: 5 | 10;
            /**
             * @default 16:9
             * @enum {string}
             */
            aspect_ratio?: "16:9" | "9:16" | "1:1";
            cfg_scale?: number;
            /** Format: uri */
            start_image_url?: string;
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
        };
        /**
         * Veo 3 Fast (veo-3-fast)
         * @description Parameters of Veo 3 Fast, a video model. 22 RUB per sec.
         */
        Veo3FastParams: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "veo-3-fast";
            prompt: string;
            negative_prompt?: string;
            /** @default 8 */
            duration?: number;
            /**
             * @default 16:9
             * @enum {string}
             */
            aspect_ratio?: "16:9" | "9:16";
            /** @default false */
            generate_audio?: boolean;
            /** Format: uri */
            start_image_url?: string;
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
        };
        /**
         * Sora 2 (sora-2)
         * @description Parameters of Sora 2, a video model. 10 RUB per sec.
         */
        Sora2Params: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "sora-2";
            prompt: string;
            /**
             * @default 4
             * @enum {integer}
             */
            duration?: 4 | 8 | 12;
            /**
             * @default 16:9
             * @enum {string}
             */
            aspect_ratio?: "16:9" | "9:16";
            /** Format: uri */
            start_image_url?: string;
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
        };
        /**
         * Seedance 1.0 Pro (seedance-1-pro)
         * @description Parameters of Seedance 1.0 Pro, a video model. 220 RUB per mtok.
         */
        Seedance1ProParams: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "seedance-1-pro";
            prompt: string;
            /** @default 5 */
            duration?: number;
            /**
             * @default 1080p
             * @enum {string}
             */
            resolution?: "480p" | "720p" | "1080p";
            /**
             * @default 16:9
             * @enum {string}
             */
            aspect_ratio?: "16:9" | "4:3" | "1:1" | "3:4" | "9:16" | "21:9";
            /** Format: uri */
            start_image_url?: string;
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
        };
        /**
         * FLUX 1.1 [pro] (flux-1-1-pro)
         * @description Parameters of FLUX 1.1 [pro], a image model. 4.5 RUB per shot.
         */
        Flux1_1ProParams: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "flux-1-1-pro";
            prompt: string;
            /**
             * @default 1:1
             * @enum {string}
             */
            aspect_ratio?: "1:1" | "16:9" | "9:16" | "4:3" | "3:4" | "3:2" | "2:3" | "21:9";
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
            /** Format: uri */
            image_url?: string;
        };
        /**
         * GPT Image 1 (gpt-image-1)
         * @description Parameters of GPT Image 1, a image model. 3.78 RUB per shot.
         */
        GptImage1Params: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "gpt-image-1";
            prompt: string;
            /**
             * @default 1:1
             * @enum {string}
             */
            aspect_ratio?: "1:1" | "3:2" | "2:3";
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
            /**
             * @default medium
             * @enum {string}
             */
            quality?: "low" | "medium" | "high";
        };
        /**
         * Seedream 4.0 (seedream-4)
         * @description Parameters of Seedream 4.0, a image model. 3.5 RUB per shot.
         */
        Seedream4Params: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "seedream-4";
            prompt: string;
            /**
             * @default 1:1
             * @enum {string}
             */
            aspect_ratio?: "1:1" | "16:9" | "9:16" | "4:3" | "3:4" | "3:2" | "2:3" | "21:9";
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
            /** Format: uri */
            image_url?: string;
        };
        /**
         * Nano Banana (Gemini 2.5 Flash Image) (nano-banana)
         * @description Parameters of Nano Banana (Gemini 2.5 Flash Image), a image model. 4 RUB per shot.
         */
        NanoBananaParams: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            model_name: "nano-banana";
            prompt: string;
            /**
             * @default 1:1
             * @enum {string}
             */
            aspect_ratio?: "1:1" | "16:9" | "9:16" | "4:3" | "3:4" | "3:2" | "2:3" | "21:9";
            seed?: number;
            /** Format: uri */
            webhook_url?: string;
            /** Format: uri */
            image_url?: string;
        };
        /**
         * @description The body of POST /generate: the parameters of one model, wrapped in `params` and selected by `params.model_name`. Each model's parameters are the component named after it (see GET /public/models/{id}).
         * @example {
         *       "params": {
         *         "model_name": "seedance-2",
         *         "prompt": "a lighthouse at dawn"
         *       }
         *     }
         */
        GenerateRequest: {
            params: components["schemas"]["Seedance2Params"] | components["schemas"]["Kling2_1Params"] | components["schemas"]["Veo3FastParams"] | components["schemas"]["Sora2Params"] | components["schemas"]["Seedance1ProParams"] | components["schemas"]["Flux1_1ProParams"] | components["schemas"]["GptImage1Params"] | components["schemas"]["Seedream4Params"] | components["schemas"]["NanoBananaParams"];
        };
        /**
         * @description The public id of a video or image model
         * @enum {string}
         */
        MediaModelName: "seedance-2" | "kling-2-1" | "veo-3-fast" | "sora-2" | "seedance-1-pro" | "flux-1-1-pro" | "gpt-image-1" | "seedream-4" | "nano-banana";
    };
    responses: never;
    parameters: {
        /** @description Makes a retry safe: the same key with the same body within 24 h answers the first answer again (Idempotent-Replayed: true) and never creates a second task. 8 to 256 printable ASCII characters. */
        IdempotencyKey: string;
        /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
        XRequestId: string;
    };
    requestBodies: never;
    headers: {
        /** @description The request's id: the client's X-Request-Id when it is a sane token, else the server's */
        "X-Request-Id": string;
        /** @description The API version (semver) */
        "X-Api-Version": string;
        /** @description Seconds to wait before retrying */
        "Retry-After": number;
        /** @description Requests per window of the calling key */
        "RateLimit-Limit": number;
        /** @description Requests left in the window */
        "RateLimit-Remaining": number;
        /** @description Seconds until the window resets */
        "RateLimit-Reset": number;
        /** @description limit;w=window seconds */
        "RateLimit-Policy": string;
        /** @description true when this is the stored answer of an earlier request with the same Idempotency-Key */
        "Idempotent-Replayed": "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listPublicModels: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Active public models with prices in rubles */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogModel"][];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPublicModel: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The model, its params schema and an example body */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelDetail"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listOpenAiModels: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAI model list */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        object?: string;
                        data?: {
                            id?: string;
                            object?: string;
                            created?: number;
                            owned_by?: string;
                            type?: string;
                            display_name?: string;
                            created_at?: string;
                        }[];
                        has_more?: boolean;
                        first_id?: string | null;
                        last_id?: string | null;
                    };
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenAiModel: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                model: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAI model object */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiModel"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account of the calling key, its keys masked */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Available balance of the calling key */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Rubles available */
                        key_balance: number;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description First day (UTC), included; default 29 days before `to` */
                from?: string;
                /** @description Last day (UTC), included; default today */
                to?: string;
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Requests, spend and tokens per model and UTC day */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "usage";
                        /** Format: date */
                        from: string;
                        /** Format: date */
                        to: string;
                        data: {
                            /** Format: date */
                            date: string;
                            model_name: string;
                            requests: number;
                            /** @description Rubles captured */
                            spent: number;
                            input_tokens: number;
                            output_tokens: number;
                        }[];
                        total: {
                            requests: number;
                            /** @description Rubles captured */
                            spent: number;
                            input_tokens: number;
                            output_tokens: number;
                        };
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTopupMethods: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment methods that are on, the bounds of one top-up, and whether an email is required */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        methods: ("yookassa" | "stripe")[];
                        min_rub: number;
                        max_rub: number;
                        receipts: boolean;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTopups: {
        parameters: {
            query?: {
                /** @description At most this many (1 to 100) */
                limit?: number;
                /** @description The id of the last top-up of the previous page */
                after?: string;
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calling key's top-ups, newest first */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object?: "list";
                        data: {
                            /** @description tu_… */
                            id: string;
                            /** @enum {string} */
                            object?: "topup";
                            /** @enum {string} */
                            status: "pending" | "succeeded" | "canceled" | "refunded";
                            /** @enum {string} */
                            method: "yookassa" | "stripe";
                            amount_rub: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            paid_at: string | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTopup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first answer again (Idempotent-Replayed: true) and never creates a second task. 8 to 256 printable ASCII characters. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Rubles, at most 2 decimals, within the bounds */
                    amount_rub: number | string;
                    /** @enum {string} */
                    method: "yookassa" | "stripe";
                    /**
                     * Format: uri
                     * @description Where the payer returns; default: the panel
                     */
                    return_url?: string;
                    /**
                     * Format: email
                     * @description The payer; required when receipts are on
                     */
                    email?: string;
                };
            };
        };
        responses: {
            /** @description The pending top-up, with the payment page to send the payer to */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description tu_… */
                        id: string;
                        /** @enum {string} */
                        object?: "topup";
                        /** @enum {string} */
                        status: "pending" | "succeeded" | "canceled" | "refunded";
                        /** @enum {string} */
                        method: "yookassa" | "stripe";
                        amount_rub: number;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        paid_at: string | null;
                    } & {
                        /** Format: uri */
                        confirmation_url: string;
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter`, `topup_method_unavailable`, `invalid_amount`, `email_required` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Bad gateway: `payment_provider_error` */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gateway timeout: `payment_provider_timeout` */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    redeemCode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Credited */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        amount_rub: number;
                        key_balance: number;
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `missing_parameter` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `code_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `code_unavailable` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTopup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The top-up */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description tu_… */
                        id: string;
                        /** @enum {string} */
                        object?: "topup";
                        /** @enum {string} */
                        status: "pending" | "succeeded" | "canceled" | "refunded";
                        /** @enum {string} */
                        method: "yookassa" | "stripe";
                        amount_rub: number;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        paid_at: string | null;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createChatCompletion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description A text model id (GET /v1/models)
                     * @example gpt-4o-mini
                     */
                    model: string;
                    messages: {
                        /** @enum {string} */
                        role: "system" | "developer" | "user" | "assistant" | "tool";
                        /** @description Text, or an array of parts ({type: "text", text} or {type: "image_url", image_url: {url}} for vision models) */
                        content?: string | {
                            [key: string]: unknown;
                        }[] | null;
                        name?: string;
                        tool_calls?: {
                            [key: string]: unknown;
                        }[];
                        tool_call_id?: string;
                    }[];
                    /** @default false */
                    stream?: boolean;
                    stream_options?: {
                        include_usage?: boolean;
                    };
                    max_tokens?: number;
                    max_completion_tokens?: number;
                    /**
                     * @description Choices to generate: the hold and the charge cover every one
                     * @default 1
                     */
                    n?: number;
                    temperature?: number;
                    top_p?: number;
                    stop?: string | string[];
                    tools?: {
                        [key: string]: unknown;
                    }[];
                    tool_choice?: string | {
                        [key: string]: unknown;
                    };
                    parallel_tool_calls?: boolean;
                    response_format?: {
                        [key: string]: unknown;
                    };
                    user?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The completion (JSON), or with stream: true its chunks as server-sent events ending in data: [DONE] */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        object: "chat.completion";
                        created: number;
                        model: string;
                        choices: {
                            [key: string]: unknown;
                        }[];
                        usage?: {
                            prompt_tokens?: number;
                            completion_tokens?: number;
                            total_tokens?: number;
                        };
                    };
                    "text/event-stream": string;
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `missing_parameter`, `unsupported_parameter`, `upstream_rejected_request` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient balance: `insufficient_balance`, `spend_limit_reached` */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed`, `model_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter`, `model_name_required`, `model_kind_not_supported`, `model_has_no_price`, `vision_not_supported` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Bad gateway: `upstream_error` */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gateway timeout: `upstream_timeout` */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createResponse: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example gpt-4o-mini */
                    model: string;
                    input: string | {
                        [key: string]: unknown;
                    }[];
                    instructions?: string;
                    /** @default false */
                    stream?: boolean;
                    max_output_tokens?: number;
                    temperature?: number;
                    top_p?: number;
                    tools?: {
                        [key: string]: unknown;
                    }[];
                    tool_choice?: string | {
                        [key: string]: unknown;
                    };
                    text?: {
                        [key: string]: unknown;
                    };
                    reasoning?: {
                        [key: string]: unknown;
                    };
                    metadata?: {
                        [key: string]: unknown;
                    };
                    /** @enum {boolean} */
                    store?: false;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The Response object, or with stream: true its events (response.created … response.completed) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id?: string;
                        /** @enum {string} */
                        object?: "response";
                    };
                    "text/event-stream": string;
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `missing_parameter`, `unsupported_parameter`, `upstream_rejected_request` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient balance: `insufficient_balance`, `spend_limit_reached` */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed`, `model_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter`, `model_name_required`, `model_kind_not_supported`, `model_has_no_price`, `vision_not_supported` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Bad gateway: `upstream_error` */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gateway timeout: `upstream_timeout` */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    model: string;
                    max_tokens: number;
                    messages: {
                        /** @enum {string} */
                        role: "user" | "assistant";
                        content: unknown;
                    }[];
                    system?: unknown;
                    stream?: boolean;
                    tools?: {
                        [key: string]: unknown;
                    }[];
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The Message, or with stream: true its events (message_start … message_stop) as server-sent events */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id?: string;
                        /** @enum {string} */
                        type?: "message";
                    };
                    "text/event-stream": string;
                };
            };
            /** @description Bad request (Anthropic's error shape) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Unauthorized (Anthropic's error shape) */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Insufficient balance (Anthropic's error shape) */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Forbidden (Anthropic's error shape) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Not found (Anthropic's error shape) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Payload too large (Anthropic's error shape) */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Too many requests (Anthropic's error shape) */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Internal server error (Anthropic's error shape) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Service unavailable (Anthropic's error shape) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Overloaded (Anthropic's error shape) */
            529: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
        };
    };
    countMessageTokens: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    model: string;
                    max_tokens: number;
                    messages: {
                        /** @enum {string} */
                        role: "user" | "assistant";
                        content: unknown;
                    }[];
                    system?: unknown;
                    stream?: boolean;
                    tools?: {
                        [key: string]: unknown;
                    }[];
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The input tokens of the request (nothing is charged) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        input_tokens: number;
                    };
                };
            };
            /** @description Bad request (Anthropic's error shape) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Unauthorized (Anthropic's error shape) */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Insufficient balance (Anthropic's error shape) */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Forbidden (Anthropic's error shape) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Not found (Anthropic's error shape) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Payload too large (Anthropic's error shape) */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Too many requests (Anthropic's error shape) */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Internal server error (Anthropic's error shape) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
            /** @description Service unavailable (Anthropic's error shape) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicError"];
                };
            };
        };
    };
    createImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first answer again (Idempotent-Replayed: true) and never creates a second task. 8 to 256 printable ASCII characters. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description An image model id; default gpt-image-1
                     * @example gpt-image-1
                     */
                    model?: string;
                    prompt: string;
                    /** @description W:H or pixels such as 1024x1024; auto keeps the model default */
                    size?: string;
                    /** @enum {integer} */
                    n?: 1;
                    /**
                     * @default url
                     * @enum {string}
                     */
                    response_format?: "url" | "b64_json";
                    /** @description Native parameters of the model (its params component) */
                    extra_body?: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The image, once its task is done */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        created: number;
                        data: {
                            url?: string;
                            b64_json?: string;
                        }[];
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `idempotency_key_invalid`, `missing_parameter`, `content_policy_violation` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient balance: `insufficient_balance`, `spend_limit_reached` */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed`, `model_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `idempotency_in_progress` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `idempotency_key_reused`, `unknown_field`, `model_name_required`, `model_kind_not_supported`, `model_has_no_price`, `invalid_parameter`, `webhook_url_not_allowed` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Bad gateway: `upstream_error`, `provider_timeout` */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance`, `upstream_overloaded` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gateway timeout: `upstream_timeout` */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listVideos: {
        parameters: {
            query?: {
                /** @description Videos per page */
                limit?: number;
                /** @description The id of the last video of the previous page */
                after?: string;
                /** @description By creation time */
                order?: "asc" | "desc";
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of videos */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: {
                            id: string;
                            /** @enum {string} */
                            object: "video";
                            model: string;
                            /** @enum {string} */
                            status: "queued" | "in_progress" | "completed" | "failed";
                            progress: number;
                            created_at: number;
                            completed_at: number | null;
                            expires_at?: number | null;
                            prompt?: string | null;
                            seconds: string | null;
                            size: string;
                            remixed_from_video_id?: string | null;
                            error: {
                                code: string;
                                message: string;
                            } | null;
                        }[];
                        first_id: string | null;
                        last_id: string | null;
                        has_more: boolean;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createVideo: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first answer again (Idempotent-Replayed: true) and never creates a second task. 8 to 256 printable ASCII characters. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description A video model id; default sora-2
                     * @example sora-2
                     */
                    model?: string;
                    prompt: string;
                    /** @description The duration in seconds */
                    seconds?: string | number;
                    /** @description W:H or pixels such as 1280x720 */
                    size?: string;
                    input_reference?: {
                        /** Format: uri */
                        image_url?: string;
                    };
                    /** @description Native parameters of the model (its params component) */
                    extra_body?: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
                "multipart/form-data": {
                    /**
                     * @description A video model id; default sora-2
                     * @example sora-2
                     */
                    model?: string;
                    prompt: string;
                    /** @description The duration in seconds */
                    seconds?: string | number;
                    /** @description W:H or pixels such as 1280x720 */
                    size?: string;
                    input_reference?: {
                        /** Format: uri */
                        image_url?: string;
                    };
                    /** @description Native parameters of the model (its params component) */
                    extra_body?: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The video object, status queued */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Video"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `idempotency_key_invalid`, `missing_parameter` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient balance: `insufficient_balance`, `spend_limit_reached` */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed`, `model_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `idempotency_in_progress` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `idempotency_key_reused`, `unknown_field`, `model_name_required`, `model_kind_not_supported`, `model_has_no_price`, `invalid_parameter`, `webhook_url_not_allowed` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getVideo: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                video_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The video object */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Video"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteVideo: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                video_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The media is deleted; the charge stays */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        object: "video.deleted";
                        deleted: boolean;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `video_not_ready` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getVideoContent: {
        parameters: {
            query?: {
                /** @description Only video is available */
                variant?: "video";
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                video_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The MP4 */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description The requested byte range */
            206: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `video_not_ready` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Range not satisfiable: `range_not_satisfiable` */
            416: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first answer again (Idempotent-Replayed: true) and never creates a second task. 8 to 256 printable ASCII characters. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GenerateRequest"];
            };
        };
        responses: {
            /** @description The task is created and its cost held */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskCreated"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `idempotency_key_invalid`, `missing_parameter` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient balance: `insufficient_balance`, `spend_limit_reached` */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed`, `model_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `model_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `idempotency_in_progress` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `idempotency_key_reused`, `unknown_field`, `model_name_required`, `model_kind_not_supported`, `model_has_no_price`, `invalid_parameter`, `webhook_url_not_allowed` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTasks: {
        parameters: {
            query?: {
                /** @description Tasks per page */
                limit?: number;
                /** @description The previous page's next_cursor (a task id) */
                after?: string;
                /** @description Only tasks in this state */
                status?: "pending" | "processing" | "completed" | "failed";
                /** @description Only tasks of this model_name */
                model?: string;
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tasks, newest first */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskList"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `task_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable: `maintenance` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getObject: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description The requested byte range */
            206: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Range not satisfiable: `range_not_satisfiable` */
            416: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminCreateAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    messaging_id: number;
                    /**
                     * @description Price multiplier
                     * @default 1
                     */
                    coefficient?: number;
                };
            };
        };
        responses: {
            /** @description The account */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminAccount"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `account_exists` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminGetAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                messaging_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminAccount"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminUpdateAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                messaging_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Price multiplier; null = 1 */
                    coefficient?: number | string | null;
                    /** @description Telegram notice when a key's funds (balance + held) fall below this; null = none */
                    low_balance_rub?: number | string | null;
                };
            };
        };
        responses: {
            /** @description The account */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminAccount"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminCreateKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                messaging_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string | null;
                    /** @description Public model ids this key may use; null = all */
                    allowed_models?: string[] | null;
                    /** @description IPv4/IPv6 CIDRs or addresses the key may be used from; null = any */
                    allowed_ip_cidrs?: string[] | null;
                    /** @description Requests per minute; null = the default (600) */
                    rate_limit_per_min?: number | null;
                    /**
                     * Format: date-time
                     * @description From then on the key answers 401 key_expired; null = never
                     */
                    expires_at?: string | null;
                    /** @description Rubles the key may spend per spend_limit_period (402 spend_limit_reached past it); null = no cap */
                    spend_limit_rub?: number | string | null;
                    /**
                     * @description UTC day, ISO week (from Monday), calendar month, or the whole life of the key; default month
                     * @enum {string|null}
                     */
                    spend_limit_period?: "day" | "week" | "month" | "total" | null;
                };
            };
        };
        responses: {
            /** @description The key, key_value in full */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyCreated"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminRotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                messaging_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook_secret: string;
                        /** Format: date-time */
                        previous_valid_until: string;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminDeleteKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminUpdateKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Public model ids this key may use; null = all */
                    allowed_models?: string[] | null;
                    /** @description IPv4/IPv6 CIDRs or addresses the key may be used from; null = any */
                    allowed_ip_cidrs?: string[] | null;
                    /** @description Requests per minute; null = the default (600) */
                    rate_limit_per_min?: number | null;
                    /**
                     * Format: date-time
                     * @description From then on the key answers 401 key_expired; null = never
                     */
                    expires_at?: string | null;
                    /** @description Rubles the key may spend per spend_limit_period (402 spend_limit_reached past it); null = no cap */
                    spend_limit_rub?: number | string | null;
                    /**
                     * @description UTC day, ISO week (from Monday), calendar month, or the whole life of the key; default month
                     * @enum {string|null}
                     */
                    spend_limit_period?: "day" | "week" | "month" | "total" | null;
                };
            };
        };
        responses: {
            /** @description The key */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Key"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminTopup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Rubles (not micro-rubles), at most 6 decimals */
                    amount_rub: number;
                    note?: string;
                };
            };
        };
        responses: {
            /** @description The new balance */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Rubles available */
                        balance: number;
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep`, `missing_parameter` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminSetMaintenance: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description The new state */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListModels: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminModel"][];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminPutModel: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Must match the path when given */
                    id?: string;
                    name: string;
                    provider: string;
                    /** @enum {string} */
                    kind: "video" | "image" | "text";
                    /** @enum {string} */
                    unit: "shot" | "sec" | "mtok";
                    /** @description Rubles per unit; null = no price (generation answers 422) */
                    priceRub: number | null;
                    priceOutputRub?: number | null;
                    /** @description null: 1.25× priceRub */
                    priceCacheWriteRub?: number | null;
                    /** @description null: 0.1× priceRub */
                    priceCacheReadRub?: number | null;
                    /** @description Per 1,000 searches; null: refused */
                    priceWebSearchRub?: number | null;
                    /** @description Per 1,000 fetches; null: refused */
                    priceWebFetchRub?: number | null;
                    /** @default true */
                    active?: boolean;
                    /** @default true */
                    visible?: boolean;
                    /** @default false */
                    vision?: boolean;
                    route?: {
                        provider?: string;
                        model?: string;
                    } | null;
                    /** @description JSON Schema of the params */
                    params_schema?: {
                        [key: string]: unknown;
                    } | null;
                    billing?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The model */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminModel"];
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListWebhooks: {
        parameters: {
            query?: {
                /** @description Delivery state */
                status?: "pending" | "delivered" | "undelivered";
                /** @description At most this many */
                limit?: number;
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deliveries */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"][];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListProviders: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every PROVIDERS_FILE account */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ProviderAccount"][];
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminRedeliverWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminCreateLoginLink: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                messaging_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The link */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uri */
                        url: string;
                        /** Format: date-time */
                        expires_at: string;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListTopups: {
        parameters: {
            query?: {
                /** @description Top-up status */
                status?: "pending" | "succeeded" | "canceled" | "refunded";
                /** @description Payment method */
                method?: string;
                /** @description The account */
                messaging_id?: number;
                /** @description At most this many (1 to 100) */
                limit?: number;
                /** @description The id of the last top-up of the previous page */
                after?: string;
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Top-ups of every account, newest first */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object?: "list";
                        data: ({
                            /** @description tu_… */
                            id: string;
                            /** @enum {string} */
                            object?: "topup";
                            /** @enum {string} */
                            status: "pending" | "succeeded" | "canceled" | "refunded";
                            /** @enum {string} */
                            method: "yookassa" | "stripe";
                            amount_rub: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            paid_at: string | null;
                        } & {
                            key_id: number;
                            messaging_id: number;
                            provider_payment_id: string | null;
                            charge?: {
                                currency?: string;
                                amount_minor?: number;
                            };
                            cancel_reason?: string | null;
                            /** Format: date-time */
                            refunded_at?: string | null;
                        })[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminRefundTopup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Default: all of it */
                    amount_rub?: number;
                };
            };
        };
        responses: {
            /** @description The top-up after the refund (refunded, or succeeded again when the provider refused it) and the refund */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        /** @description tu_… */
                        id: string;
                        /** @enum {string} */
                        object?: "topup";
                        /** @enum {string} */
                        status: "pending" | "succeeded" | "canceled" | "refunded";
                        /** @enum {string} */
                        method: "yookassa" | "stripe";
                        amount_rub: number;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        paid_at: string | null;
                    } & {
                        key_id: number;
                        messaging_id: number;
                        provider_payment_id: string | null;
                        charge?: {
                            currency?: string;
                            amount_minor?: number;
                        };
                        cancel_reason?: string | null;
                        /** Format: date-time */
                        refunded_at?: string | null;
                    }) & {
                        refund: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `topup_not_refundable`, `refund_exceeds_balance` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_amount`, `topup_method_unavailable` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminCreateCodes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount_rub: number;
                    /** @default 1 */
                    count?: number;
                    /** @description ISO 8601 time or Unix seconds */
                    expires_at?: string | number;
                };
            };
        };
        responses: {
            /** @description The codes, shown this once (only their hashes are kept) */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        codes: string[];
                    };
                };
            };
            /** @description Bad request: `invalid_json`, `body_too_deep` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `unknown_field`, `invalid_amount`, `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminMarginReport: {
        parameters: {
            query?: {
                /** @description First UTC day (default: 29 days before `to`) */
                from?: string;
                /** @description Last UTC day, included (default: today) */
                to?: string;
            };
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per day, model and provider; cost and margin null unless every request has a known cost */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** Format: date */
                            day: string;
                            model: string;
                            provider: string | null;
                            requests: number;
                            /** @description Captured from balances */
                            revenue_rub: number;
                            /** @description Provider cost; null when not known */
                            cost_rub: number | null;
                            /** @description Revenue minus cost; null when the cost is not known */
                            margin_rub: number | null;
                        }[];
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unprocessable entity: `invalid_parameter` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready";
                        checks: components["schemas"]["ReadinessChecks"];
                    };
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not ready: the error shape (code not_ready) plus the checks; with Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        checks: components["schemas"]["ReadinessChecks"];
                    };
                };
            };
        };
    };
    version: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Versions */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        api_version: string;
                        build?: string;
                    };
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    status: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Health of each component and the last hour per model family */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The headline: down when a core component is down
                         * @enum {string}
                         */
                        status: "operational" | "degraded" | "down" | "maintenance" | "unknown";
                        /** Format: date-time */
                        updated_at: string;
                        /** @description The figures cover this many seconds up to updated_at */
                        window_seconds: number;
                        components: {
                            /** @description api, database, redis, workers, or provider:NAME */
                            id: string;
                            name: string;
                            /** @enum {string} */
                            type: "core" | "provider";
                            /** @enum {string} */
                            status: "operational" | "degraded" | "down" | "maintenance" | "unknown";
                            workers?: {
                                /** @description Worker processes that reported in the last 15 s */
                                live: number;
                                /** @description How long the oldest runnable task has waited */
                                queue_wait_seconds: number;
                            };
                            last_hour?: {
                                succeeded: number;
                                failed: number;
                                success_rate: number | null;
                            };
                        }[];
                        families: {
                            /** @enum {string} */
                            family: "video" | "image" | "text";
                            succeeded: number;
                            failed: number;
                            success_rate: number | null;
                            /** @description Median time from request to result of the succeeded ones */
                            median_seconds: number | null;
                        }[];
                    };
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    statusPage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status page */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    providerCallback: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
                "*/*": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Taken */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        received: true;
                    };
                };
            };
            /** @description Unauthorized: `invalid_signature` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    paymentNotification: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back */
                "X-Request-Id"?: components["parameters"]["XRequestId"];
            };
            path: {
                method: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
                "*/*": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Taken */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        received: true;
                    };
                };
            };
            /** @description Bad request: `invalid_notification` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: `ip_not_allowed` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal server error: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Bad gateway: `upstream_error` */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Api-Version": components["headers"]["X-Api-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    taskFinished: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any other answer, or none, is retried */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
