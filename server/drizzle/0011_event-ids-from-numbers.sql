ALTER TABLE `events` ADD `token` char(16) NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `events` SET `token` = SUBSTRING(`id`, 15, 16);--> statement-breakpoint
ALTER TABLE `events` ALTER COLUMN `token` DROP DEFAULT;--> statement-breakpoint
ALTER TABLE `events` DROP COLUMN `id`;--> statement-breakpoint
ALTER TABLE `events` ADD `id` char(30) GENERATED ALWAYS AS (CONCAT('evt_', LPAD(LOWER(CONV(`seq`, 10, 36)), 10, '0'), `token`)) VIRTUAL;
